package main_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/testenv"
	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// Frame-level exchanges captured from Codex's own host (V1 on stdio) and replayed against
// codemode-host: fixtures/codex/v1/<scenario>.json holds what the client sent and, frame by
// frame, what Codex's host answered (timings zeroed). `go test -run TestCodexFrames
// -capture-codex-frames` records them anew with the pinned Codex; a plain run replays them
// against codemode-host in generation bounded-output, and the scenarios that use nothing of it in
// the two older generations too (their answers derived by dropping the fields those lack).

var captureCodexFrames = flag.Bool("capture-codex-frames", false, "record fixtures/codex/v1 from the pinned Codex host instead of replaying them")

const codexFramesDir = "../../fixtures/codex/v1"

// frameStep is one step of a scenario: send a frame (with $delegate replaced by the ID of the
// last delegate/request received), then read Receive frames, or expect the host to end the
// connection (EOF).
type frameStep struct {
	Send    string `json:"send,omitempty"`
	Receive int    `json:"receive,omitempty"`
	EOF     bool   `json:"eof,omitempty"`
	// Unordered compares the step's frames as a set: a yield's answer and a tool call of the same
	// turn, which Codex's host orders by a race of its own tasks (docs/runtime-parity.md).
	Unordered bool     `json:"unordered,omitempty"`
	Frames    []string `json:"frames,omitempty"`
}

// frameScenario is a recorded exchange.
type frameScenario struct {
	Description string `json:"description"`
	// G3Only marks exchanges that use what only generation bounded-output has.
	G3Only bool        `json:"g3_only,omitempty"`
	Codex  string      `json:"codex,omitempty"`
	Steps  []frameStep `json:"steps"`
}

const (
	helloLimits = `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["session-cell-execution-resource-limits"]}`
	helloCodex  = `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["session-cell-execution-resource-limits","yield-observation","bounded-output-v1","delegate-capacity-4096"]}`
	openPlain   = `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s"}}`
	openServer  = `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","outputTruncation":"server"}}`
	toolDef     = `{"name":"echo","tool_name":{"name":"echo","namespace":null},"description":"echo","kind":"function","input_schema":null,"output_schema":null}`
)

func execFrame(id int, source, budget string, yieldMs int) string {
	src, _ := json.Marshal(source)
	return fmt.Sprintf(`{"type":"operation/request","id":%d,"request":{"method":"session/execute","sessionId":"s","request":{"tool_call_id":"call-%d","enabled_tools":[%s],"source":%s,"yield_time_ms":%d,"max_output_tokens":%s}}}`, id, id, toolDef, src, yieldMs, budget)
}

func waitFrame(id int, cell string, extra string) string {
	return fmt.Sprintf(`{"type":"operation/request","id":%d,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":%q,"yield_time_ms":30000}%s}}`, id, cell, extra)
}

const toolResult = `{"type":"delegate/response","id":$delegate,"result":{"status":"ok","value":{"type":"tool/result","result":{"ok":1}}}}`

// codexFrameScenarios are the exchanges, by fixture name. Each keeps to what is deterministic:
// no engine texts (stacks), no races between a cell's end and the next frame.
var codexFrameScenarios = map[string]frameScenario{
	"handshake-codex-0169": {Description: "Codex 0.169's hello: the four capabilities granted, sorted", G3Only: true, Steps: []frameStep{
		{Send: helloCodex, Receive: 1},
	}},
	"handshake-rejections": {Description: "required dual websockets on stdio is refused; then the host closes", Steps: []frameStep{
		{Send: `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":["dual-websocket-v1"],"optionalCapabilities":[]}`, Receive: 1, EOF: true},
	}},
	"text-result": {Description: "a cell's text, its Result and cell/closed", Steps: []frameStep{
		{Send: helloLimits, Receive: 1},
		{Send: openPlain, Receive: 1},
		{Send: execFrame(2, `text("hi"); text({a: 1}); image("data:image/png;base64,AAAA");`, "null", 30000), Receive: 3},
	}},
	"tool-call-round-trip": {Description: "a nested tool call and its answer", Steps: []frameStep{
		{Send: helloLimits, Receive: 1},
		{Send: openPlain, Receive: 1},
		{Send: execFrame(2, `const r = await tools.echo({v: 1}); text(JSON.stringify(r));`, "null", 30000), Receive: 2},
		{Send: toolResult, Receive: 2},
	}},
	"yield-then-wait": {Description: "yield_control() answers the execute; a wait collects the Result", Steps: []frameStep{
		{Send: helloLimits, Receive: 1},
		{Send: openPlain, Receive: 1},
		{Send: execFrame(2, `text("a"); yield_control(); const r = await tools.echo({}); text("b");`, "null", 30000), Receive: 3, Unordered: true},
		{Send: waitFrame(3, "1", ""), Receive: 0},
		{Send: toolResult, Receive: 2},
	}},
	"operation-yield": {Description: "operation/yield ends the execute's observation, then the wait's; unknown IDs are ignored", G3Only: true, Steps: []frameStep{
		{Send: helloCodex, Receive: 1},
		{Send: `{"type":"operation/yield","id":42}`},
		{Send: openPlain, Receive: 1},
		{Send: execFrame(2, `text("a"); await tools.echo({}); text("b"); await tools.echo({}); text("c");`, "null", 30000), Receive: 2},
		{Send: `{"type":"operation/yield","id":2}`, Receive: 1},
		{Send: waitFrame(3, "1", "")},
		{Send: toolResult, Receive: 1},
		{Send: `{"type":"operation/yield","id":3}`, Receive: 1},
		{Send: toolResult},
		{Send: waitFrame(4, "1", ""), Receive: 2},
	}},
	"server-truncation": {Description: "outputTruncation server: one text, several items with an image, a failed script, a terminate budget", G3Only: true, Steps: []frameStep{
		{Send: helloCodex, Receive: 1},
		{Send: openServer, Receive: 1},
		{Send: execFrame(2, `text("x".repeat(4000) + "END")`, "10", 30000), Receive: 3},
		{Send: execFrame(3, `text("a".repeat(300)); text("b".repeat(300)); image("data:image/png;base64,AAAA");`, "20", 30000), Receive: 3},
		{Send: execFrame(4, `text("before"); throw "boom"`, "null", 30000), Receive: 3},
		{Send: execFrame(5, `text("a"); throw "e".repeat(400)`, "10", 30000), Receive: 3},
		{Send: execFrame(6, `text("q".repeat(800)); yield_control(); await tools.echo({});`, "null", 30000), Receive: 3, Unordered: true},
		{Send: `{"type":"operation/request","id":7,"request":{"method":"session/terminate","sessionId":"s","cellId":"5","maxOutputTokens":3}}`, Receive: 2},
	}},
	"client-truncation-keeps-output-whole": {Description: "without outputTruncation the host sends the output whole, whatever the budget", G3Only: true, Steps: []frameStep{
		{Send: helloCodex, Receive: 1},
		{Send: openPlain, Receive: 1},
		{Send: execFrame(2, `text("x".repeat(200)); throw "boom"`, "1", 30000), Receive: 3},
	}},
	"bad-output-truncation-ends-the-connection": {Description: "a decode failure after the handshake: no reply, the connection ends", G3Only: true, Steps: []frameStep{
		{Send: helloCodex, Receive: 1},
		{Send: `{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","outputTruncation":{}}}`, EOF: true},
	}},
}

// zeroTimings zeroes the timing fields of a frame, which differ between runs of any host.
var timingField = regexp.MustCompile(`"(code_mode_host_duration_ns|result_buffered_for_ns)":[0-9]+`)

func zeroTimings(frame string) string { return timingField.ReplaceAllString(frame, `"$1":0`) }

// forGeneration is a frame of bounded-output as an older generation writes it.
func forGeneration(frame, generation string) string {
	switch generation {
	case "host-duration":
		return strings.ReplaceAll(frame, `"result_buffered_for_ns":0,`, "")
	case "baseline":
		frame = strings.ReplaceAll(frame, `"result_buffered_for_ns":0,`, "")
		frame = strings.ReplaceAll(frame, `,"code_mode_host_duration_ns":0`, "")
	}
	return frame
}

// v1Process is a host on V1 stdio driven frame by frame.
type v1Process struct {
	t      *testing.T
	host   *hostProcess
	frames chan frameOrErr
	last   string // the ID of the last delegate/request
}

type frameOrErr struct {
	payload string
	err     error
}

func startV1Process(t *testing.T, path string, args ...string) *v1Process {
	t.Helper()
	return startV1ProcessEnv(t, path, nil, args...)
}

// startV1ProcessEnv is startV1Process with env added to the test's environment.
func startV1ProcessEnv(t *testing.T, path string, env []string, args ...string) *v1Process {
	t.Helper()
	p := &v1Process{t: t, host: startProcess(t, path, env, args...), frames: make(chan frameOrErr, 64)}
	go func() {
		r := v1frame.NewReader(p.host.stdout)
		for {
			b, err := r.Read()
			p.frames <- frameOrErr{string(b), err}
			if err != nil {
				return
			}
		}
	}()
	return p
}

func (p *v1Process) send(payload string) {
	p.t.Helper()
	payload = strings.ReplaceAll(payload, "$delegate", p.last)
	f, err := v1frame.Append(nil, []byte(payload))
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.host.stdin.Write(f); err != nil {
		p.t.Fatalf("send %s: %v", payload, err)
	}
}

var delegateID = regexp.MustCompile(`^\{"type":"delegate/request","id":([0-9]+)`)

// receive returns the next frame; the reader ends the channel's stream with the host's EOF, so
// the wait ends with the host either way.
func (p *v1Process) receive() (string, error) {
	f := <-p.frames
	if f.err == nil {
		if m := delegateID.FindStringSubmatch(f.payload); m != nil {
			p.last = m[1]
		}
	}
	return f.payload, f.err
}

// run plays the scenario's sends and returns the frames received at each step.
func (p *v1Process) run(steps []frameStep) [][]string {
	p.t.Helper()
	out := make([][]string, len(steps))
	for i, st := range steps {
		if st.Send != "" {
			p.send(st.Send)
		}
		for range st.Receive {
			f, err := p.receive()
			if err != nil {
				p.t.Fatalf("step %d: %v after %q", i, err, out[i])
			}
			out[i] = append(out[i], zeroTimings(f))
		}
		if st.EOF {
			if f, err := p.receive(); !errors.Is(err, io.EOF) {
				p.t.Fatalf("step %d: want the end of the connection, got %q, %v", i, f, err)
			}
		}
	}
	return out
}

func TestCodexFrames(t *testing.T) {
	if *captureCodexFrames {
		captureFrames(t)
		return
	}
	for _, name := range sortedKeys(codexFrameScenarios) {
		want := loadFrames(t, name)
		generations := []string{"bounded-output", "host-duration", "baseline"}
		if want.G3Only {
			generations = generations[:1]
		}
		for _, g := range generations {
			t.Run(name+"/"+g, func(t *testing.T) {
				got := startV1Process(t, bin, "--generation", g).run(want.Steps)
				for i, st := range want.Steps {
					if len(got[i]) != len(st.Frames) {
						t.Fatalf("step %d: %d frames, Codex %s sent %d:\n got %q\nwant %q", i, len(got[i]), want.Codex, len(st.Frames), got[i], st.Frames)
					}
					wantFrames := make([]string, len(st.Frames))
					for j, f := range st.Frames {
						wantFrames[j] = forGeneration(f, g)
					}
					if st.Unordered {
						slices.Sort(wantFrames)
						slices.Sort(got[i])
					}
					for j := range wantFrames {
						if got[i][j] != wantFrames[j] {
							t.Errorf("step %d frame %d:\n codemode %s\n codex    %s", i, j, got[i][j], wantFrames[j])
						}
					}
				}
			})
		}
	}
}

// loadFrames reads a recorded scenario; the scenario's sends must be the ones in the code.
func loadFrames(t *testing.T, name string) frameScenario {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(codexFramesDir, name+".json"))
	if err != nil {
		t.Fatalf("%v (record it with -capture-codex-frames)", err)
	}
	var s frameScenario
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	code := codexFrameScenarios[name]
	if len(s.Steps) != len(code.Steps) {
		t.Fatalf("%s is stale: record it again with -capture-codex-frames", name)
	}
	for i := range s.Steps {
		if s.Steps[i].Send != code.Steps[i].Send || s.Steps[i].Receive != code.Steps[i].Receive || s.Steps[i].EOF != code.Steps[i].EOF || s.Steps[i].Unordered != code.Steps[i].Unordered {
			t.Fatalf("%s step %d is stale: record it again with -capture-codex-frames", name, i)
		}
	}
	return s
}

// captureFrames records every scenario from the pinned Codex's host.
func captureFrames(t *testing.T) {
	c := testenv.FindCodex(t)
	if err := os.MkdirAll(codexFramesDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range sortedKeys(codexFrameScenarios) {
		s := codexFrameScenarios[name]
		got := startV1Process(t, c.Host).run(s.Steps)
		s.Codex = c.Version
		for i := range s.Steps {
			s.Steps[i].Frames = got[i]
		}
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(codexFramesDir, name+".json"), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s: %d steps from Codex %s", name, len(s.Steps), c.Version)
	}
}
