package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runCLI drives the real command with source on stdin.
func runCLI(t *testing.T, source string, flags ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	args := append(append([]string{"run"}, flags...), "-")
	code = dispatch(args, strings.NewReader(source), &out, &errOut)
	return out.String(), errOut.String(), code
}

var wallTime = regexp.MustCompile(`Wall time \d+\.\d seconds`)

// normalize replaces the measured wall time, the only nondeterministic part of the output.
func normalize(s string) string { return wallTime.ReplaceAllString(s, "Wall time X seconds") }

func TestRunPrintsWhatTheModelSees(t *testing.T) {
	out, _, code := runCLI(t, `text("hi"); text({a: 1});`)
	want := "Script completed\nWall time X seconds\nOutput:\nhi\n{\"a\":1}\n"
	if code != 0 || normalize(out) != want {
		t.Fatalf("code %d, output:\n%q\nwant:\n%q", code, normalize(out), want)
	}
}

func TestRunReportsScriptErrorsWithExitCode1(t *testing.T) {
	out, _, code := runCLI(t, `text("before"); throw "boom";`)
	want := "Script failed\nWall time X seconds\nOutput:\nbefore\nScript error:\nboom\n"
	if code != 1 || normalize(out) != want {
		t.Fatalf("code %d, output:\n%q\nwant:\n%q", code, normalize(out), want)
	}
}

func TestRunCallsTheDemoToolsAndPrintsNotifications(t *testing.T) {
	out, errOut, code := runCLI(t, `const r = await tools.echo({n: 2}); text(r.n); text(await tools.upper("abc")); notify("note");`)
	if code != 0 || !strings.HasSuffix(out, "\n2\nABC\n") {
		t.Fatalf("code %d, output %q", code, out)
	}
	if errOut != "notify (cell 1): note\n" {
		t.Fatalf("stderr %q", errOut)
	}
}

func TestRunHonoursThePragmaAndWaitsOnYieldedCells(t *testing.T) {
	src := "// @exec: {\"yield_time_ms\": 0}\ntext(\"first\"); await new Promise(r => setTimeout(r, 20)); text(\"second\");"
	out, _, code := runCLI(t, src, "--wait", "--yield", "5000")
	if code != 0 || !strings.Contains(out, "Script completed") || !strings.Contains(out, "second") {
		t.Fatalf("code %d, output %q", code, out)
	}
	out, _, _ = runCLI(t, src)
	if !strings.HasPrefix(out, "Script running with cell ID 1\n") {
		t.Fatalf("pragma yield_time_ms 0 did not yield: %q", out)
	}
}

func TestRunRejectsABadPragmaWithCodexText(t *testing.T) {
	out, _, code := runCLI(t, "// @exec: {\"foo\": 1}\ntext(1)")
	if code != 1 || out != "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `foo`\n" {
		t.Fatalf("code %d, output %q", code, out)
	}
}

func TestRunJSONPrintsRawContentItems(t *testing.T) {
	out, _, code := runCLI(t, `text("x"); image("data:image/png;base64,AAAA")`, "--json")
	want := `[{"type":"input_text","text":"x"},{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"high"}]` + "\n"
	if code != 0 || out != want {
		t.Fatalf("code %d, output %q", code, out)
	}
}

// Every example must keep running to a successful completion: the README points newcomers there.
func TestExamplesRunToCompletion(t *testing.T) {
	paths, err := filepath.Glob("../../examples/*.js")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := dispatch([]string{"run", "--wait", path}, strings.NewReader(""), &out, &errOut)
			if code != 0 || !strings.Contains(out.String(), "Script completed\n") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
			}
		})
	}
}
