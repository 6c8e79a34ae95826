package main

import (
	"testing"
)

// runCLI runs `codemode run [flags] -` with source on stdin.
func runCLI(t *testing.T, source string, flags ...string) cli {
	t.Helper()
	return runArgs(t, source, append(append([]string{"run"}, flags...), "-")...)
}

func TestRunPrintsWhatTheModelSees(t *testing.T) {
	got := runCLI(t, `text("hi"); text({a: 1});`)
	want := "Script completed\nWall time X.X seconds\nOutput:\nhi\n{\"a\":1}\n"
	if got.status != exitOK || normalize(got.stdout) != want {
		t.Fatalf("exit status %d, output:\n%q\nwant:\n%q", got.status, normalize(got.stdout), want)
	}
}

func TestRunReportsScriptErrorsWithExitStatus1(t *testing.T) {
	got := runCLI(t, `text("before"); throw "boom";`)
	want := "Script failed\nWall time X.X seconds\nOutput:\nbefore\nScript error:\nboom\n"
	if got.status != exitFailed || normalize(got.stdout) != want {
		t.Fatalf("exit status %d, output:\n%q\nwant:\n%q", got.status, normalize(got.stdout), want)
	}
}

func TestRunCallsTheDemoToolsAndPrintsNotifications(t *testing.T) {
	got := runCLI(t, `const r = await tools.echo({n: 2}); text(r.n); text(await tools.upper("abc")); notify("note");`)
	if got.status != exitOK || normalize(got.stdout) != "Script completed\nWall time X.X seconds\nOutput:\n2\nABC\n" {
		t.Fatalf("exit status %d, output %q", got.status, got.stdout)
	}
	if got.stderr != "notify (cell 1): note\n" {
		t.Fatalf("stderr %q", got.stderr)
	}
}

// A pragma's yield time applies (0: an empty yield before the script runs) and --wait waits for
// the rest; a cell that yields and is not waited on exits with status 3 and says why on stderr.
func TestRunHonoursThePragmaAndWaitsOnYieldedCells(t *testing.T) {
	src := "// @exec: {\"yield_time_ms\": 0}\ntext(\"first\"); text(\"second\");"
	got := runCLI(t, src, "--wait")
	want := "Script running with cell ID 1\nWall time X.X seconds\nOutput:\n" +
		"Script completed\nWall time X.X seconds\nOutput:\nfirst\nsecond\n"
	if got.status != exitOK || normalize(got.stdout) != want {
		t.Fatalf("exit status %d, output %q\nwant %q", got.status, normalize(got.stdout), want)
	}
	got = runCLI(t, src)
	if got.status != exitStillRunning || normalize(got.stdout) != "Script running with cell ID 1\nWall time X.X seconds\nOutput:\n" ||
		got.stderr != "codemode run: cell 1 is still running; codemode stops it on exit (--wait waits for it to finish)\n" {
		t.Fatalf("pragma yield_time_ms 0: exit status %d, stdout %q, stderr %q", got.status, got.stdout, got.stderr)
	}
}

func TestRunRejectsABadPragmaWithCodexText(t *testing.T) {
	got := runCLI(t, "// @exec: {\"foo\": 1}\ntext(1)")
	if got.status != exitFailed || got.stdout != "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `foo`\n" {
		t.Fatalf("exit status %d, output %q", got.status, got.stdout)
	}
}

func TestRunJSONPrintsRawContentItems(t *testing.T) {
	got := runCLI(t, `text("x"); image("data:image/png;base64,AAAA")`, "--json")
	want := `[{"type":"input_text","text":"x"},{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"high"}]` + "\n"
	if got.status != exitOK || got.stdout != want {
		t.Fatalf("exit status %d, output %q", got.status, got.stdout)
	}
}

// --repeat runs the file as successive cells of one session: stored values carry over.
func TestRunRepeatSharesStoredValuesAcrossCells(t *testing.T) {
	got := runCLI(t, `const n = (load("n") ?? 0) + 1; store("n", n); text(n);`, "--repeat", "3")
	one := func(n string) string { return "Script completed\nWall time X.X seconds\nOutput:\n" + n + "\n" }
	if got.status != exitOK || normalize(got.stdout) != one("1")+one("2")+one("3") {
		t.Fatalf("exit status %d, output %q", got.status, normalize(got.stdout))
	}
	got = runCLI(t, `const n = (load("n") ?? 0) + 1; store("n", n); if (n === 2) throw "second"; text(n);`, "--repeat", "3")
	if got.status != exitFailed || normalize(got.stdout) != one("1")+"Script failed\nWall time X.X seconds\nOutput:\nScript error:\nsecond\n" {
		t.Fatalf("a failing cell stops the repetition: exit status %d, output %q", got.status, normalize(got.stdout))
	}
}

func TestRunReportsAnUnreadableFile(t *testing.T) {
	got := runArgs(t, "", "run", "testdata/run/no-such-file.js")
	if got.status != exitUsage || got.stderr != "codemode run: reading the source: open testdata/run/no-such-file.js: no such file or directory\n" {
		t.Fatalf("exit status %d, stderr %q", got.status, got.stderr)
	}
}
