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
// Behaviour is driven by small JavaScript sources (spec §4) and observed through a Recorder, a real
// Delegate that records tool calls, notifications and cell closures in order and lets a test script
// each tool's behaviour. Subtests are named after Codex's runtime tests (spec §5.8) where one matches.
// Every subtest ends by shutting its sessions down and checking that each admitted cell was reported
// closed exactly once.
//
// The suite never asserts that something happened faster than a bound: waits use generous
// timeouts, and ordering is checked through the Recorder's event sequence instead of the clock.
//
// Codex tests deliberately left out: the 1 s yield-grace tests (they need 10 s deadlines and a race
// against the clock), the pending-frontier API (not part of this contract), "is already
// terminating" (reachable only while an in-process delegate ignores cancellation), panics and
// runtime-thread deaths (not reachable through the contract), and the ICU/Intl formatting tests.
package codemodetest
