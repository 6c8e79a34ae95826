package main_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/testenv/fakemodel"
)

// agentCase is a turn the scripted model takes: its tool calls, in order, and texts that the
// outputs must hold on either host (so that two hosts failing alike cannot pass).
type agentCase struct {
	name   string
	script []fakemodel.Reply
	holds  []string
}

var agentCases = []agentCase{
	{"text and a nested Codex tool", []fakemodel.Reply{fakemodel.Exec("call_1",
		`text("hi"); const r = await tools.exec_command({cmd: "echo nested", tty: false, login: false}); text(r.output); text(r.exit_code)`)},
		[]string{`Script completed`, `"text":"hi"`, `"text":"nested\n"`, `"text":"0"`}},
	{"yield then wait", []fakemodel.Reply{
		fakemodel.Exec("call_1", `text("a"); yield_control(); await new Promise(r => setTimeout(r, 100)); text("b")`),
		fakemodel.Function("call_2", "wait", map[string]any{"cell_id": "1", "yield_time_ms": 60000}),
	}, []string{`Script running with cell ID 1`, `"text":"a"`, `"text":"b"`}},
	{"server truncation of a large output", []fakemodel.Reply{fakemodel.Exec("call_1",
		"// @exec: {\"max_output_tokens\": 10}\n"+`text("x".repeat(5000) + "END")`)},
		[]string{`Warning: truncated output (original token count: 1251)`, `…1241 tokens truncated…`, `xEND"`}},
	{"a script error", []fakemodel.Reply{fakemodel.Exec("call_1", `text("before"); throw "boom"`)},
		[]string{`Script failed`, `"text":"before"`, `Script error:\nboom`}},
	{"a long script error truncated with the output", []fakemodel.Reply{fakemodel.Exec("call_1",
		"// @exec: {\"max_output_tokens\": 10}\n"+`text("a"); throw "e".repeat(400)`)},
		[]string{`Script failed`, `Warning: truncated output (original token count: 104)`, `a\nScript error:\neeee…94 tokens truncated…`}},
}

// TestCodexAgentOnCodemodeHost: the real Codex agent runs each case on codemode-host and on
// Codex's own host, spawned over gRPC on stdio (Codex's default), spawned over V1 on stdio, and
// as a remote gRPC host of app-server; the model must receive exactly the same outputs.
func TestCodexAgentOnCodemodeHost(t *testing.T) {
	for _, mode := range agentModes {
		t.Run(string(mode), func(t *testing.T) {
			for _, c := range agentCases {
				t.Run(c.name, func(t *testing.T) {
					want := runAgent(t, mode, codexHost, c.script...)
					got := runAgent(t, mode, codemodeHost, c.script...)
					checkHolds(t, "Codex's host", want.outputs, c.holds)
					checkHolds(t, "codemode-host", got.outputs, c.holds)
					for i := range want.outputs {
						if !bytes.Equal(got.outputs[i], want.outputs[i]) {
							t.Errorf("output %d:\ncodemode: %s\ncodex:    %s", i+1, got.outputs[i], want.outputs[i])
						}
					}
				})
			}
		})
	}
}

// checkHolds fails t unless the outputs hold every text of holds.
func checkHolds(t *testing.T, host string, outputs []json.RawMessage, holds []string) {
	t.Helper()
	var all string
	for _, o := range outputs {
		all += string(o) + "\n"
	}
	for _, h := range holds {
		if !strings.Contains(all, h) {
			t.Errorf("on %s the model was not sent %s:\n%s", host, h, all)
		}
	}
}
