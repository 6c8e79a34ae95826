// Package codemodetest is the one conformance suite for the Code Mode session contract of package
// codemode. Every transport (in process, V1 over stdio or WebSocket, gRPC, gRPC-Web, Connect) runs
// the same Run against its SessionProvider, so the suite talks only through codemode.SessionProvider,
// codemode.Session, codemode.Delegate and codemode.StartedCell:
//
//	func TestConformance(t *testing.T) {
//		codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
//			p := newMyProvider(t) // register p's cleanup with t
//			return p
//		})
//	}
//
// Behaviour is driven by small JavaScript sources (docs/protocol/javascript.md) and observed through a Recorder, a real
// Delegate that records tool calls, notifications and cell closures in order and lets a test script
// each tool's behaviour. Subtests are named after Codex's runtime tests (docs/protocol/README.md#codex-test-suites) where one matches.
// Every subtest ends by shutting its sessions down and checking that each admitted cell was reported
// closed exactly once.
//
// The suite never asserts that something happened faster than a bound and never sleeps to wait
// for work: it waits for events (delegate callbacks through the Recorder, responses, a stored
// value that proves a cell completed) and checks ordering through the Recorder's event sequence.
// Run it with FakeTime where the provider allows: every subtest then runs in a testing/synctest
// bubble, deadlines and timers fire exactly when a case advances the clock, and the cases that
// steer time run as well (on the real clock they are skipped). Cases of the pending-frontier API
// run when the session implements codemode.PendingSession.
//
// Codex runtime tests (docs/protocol/README.md#codex-test-suites) that do not apply, and why:
//   - linked_v8_has_sandbox_enabled: V8's pointer-compression sandbox; QuickJS runs inside a wasm
//     instance, whose isolation package jsruntime tests (isolation_test.go).
//   - code_mode_runs_with_jit_disabled: V8's --jitless; QuickJS has no JIT, and wazero compiles
//     the fixed QuickJS module once, ahead of time.
//   - date_locale_string_formats_with_icu_data, intl_date_time_format_formats_with_icu_data:
//     they format in fr-FR; codemode has no ICU and formats every locale as en-US
//     (docs/adr/0063-en-us-locale-and-a-small-intl.md).
//   - drop_terminates_cells_when_the_registry_is_locked: Rust's Drop running while the registry
//     lock is held; Go has no destructors. Its Go counterpart, Provider.Close stopping the cells of
//     sessions nobody shut down, is a jsruntime test of that name.
//
// Codex tests of runtime internals (a runtime goroutine that dies, the order of admission and
// shutdown at the registry lock, a callback goroutine that ends without returning) are jsruntime
// tests under Codex's names; so is cell_id_allocation_fails_before_wrapping, which needs the
// allocator positioned at its end.
package codemodetest
