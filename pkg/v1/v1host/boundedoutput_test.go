package v1host

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/gen/go/wirev1"
)

// The host of generation bounded-output (Codex 0.169, docs/protocol/v1.md#bounded-output-g3), frame by frame
// with Codex's exact shapes.

// codexHello is Codex 0.169's client hello.
const codexHello = `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":["session-cell-execution-resource-limits","yield-observation","bounded-output-v1","delegate-capacity-4096"]}`

const codexReady = `{"type":"connection/ready","selectedVersion":1,"capabilities":["bounded-output-v1","delegate-capacity-4096","session-cell-execution-resource-limits","yield-observation"]}`

// readyWithBoundedOutput performs Codex 0.169's handshake, in which the host grants bounded-output.
func (c *rawClient) readyWithBoundedOutput() *rawClient {
	c.t.Helper()
	c.send(codexHello)
	c.expect(codexReady)
	return c
}

func hello(required, optional []string) string {
	q := func(list []string) string {
		if len(list) == 0 {
			return "[]"
		}
		return `["` + strings.Join(list, `","`) + `"]`
	}
	return fmt.Sprintf(`{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":%s,"optionalCapabilities":%s}`, q(required), q(optional))
}

func TestBoundedOutputGrantsCodexCapabilities(t *testing.T) {
	checkLeaks(t)
	g3 := []string{"bounded-output-v1", "delegate-capacity-4096", "yield-observation"}
	c := serveRaw(t, New(newProvider(t)))
	c.send(hello(append(slices.Clone(g3), "session-cell-execution-resource-limits"), nil))
	c.expect(codexReady)
	for _, capability := range g3 {
		for _, required := range []bool{true, false} {
			c := serveRaw(t, New(newProvider(t)))
			if required {
				c.send(hello([]string{capability}, nil))
			} else {
				c.send(hello(nil, []string{capability}))
			}
			c.expect(`{"type":"connection/ready","selectedVersion":1,"capabilities":["` + capability + `"]}`)
		}
	}
	dual := serveRaw(t, New(newProvider(t)))
	dual.send(hello([]string{"dual-websocket-v1"}, nil))
	dual.expect(`{"type":"connection/rejected","reason":{"type":"missingRequiredCapability","capability":"dual-websocket-v1"}}`)
	// An older generation's host does not know them: required, they are refused.
	for _, capability := range g3 {
		c := serveRaw(t, New(newProvider(t), WithGeneration(wirev1.GenerationHostDuration)))
		c.send(hello([]string{capability}, nil))
		c.expect(`{"type":"connection/rejected","reason":{"type":"missingRequiredCapability","capability":"` + capability + `"}}`)
	}
}

// resultFrame is the initial response of a completed cell in generation bounded-output.
func TestResultCarriesItsBufferedTime(t *testing.T) {
	checkLeaks(t)
	c := serveRaw(t, New(newProvider(t))).readyWithBoundedOutput()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	c.send(execute(2, "s", `text("hi")`))
	c.expect(started(2, "1"))
	got := c.recv()
	if !strings.HasPrefix(got, `{"type":"execute/initialResponse","id":2,"result":{"status":"ok","value":{"Result":{"cell_id":"1","content_items":[{"type":"input_text","text":"hi"}],"error_text":null,"result_buffered_for_ns":0,"code_mode_host_duration_ns":`) {
		t.Fatalf("initial response %s", got)
	}
	c.expect(`{"type":"cell/closed","sessionId":"s","cellId":"1"}`)
}

// operation/yield ends the observed execute, then the observed wait, at once; the cell runs on.
// Unknown, finished and non-observation IDs are ignored without a frame.
func TestOperationYieldEndsTheObservation(t *testing.T) {
	checkLeaks(t)
	c := serveRaw(t, New(newProvider(t))).readyWithBoundedOutput()
	c.send(`{"type":"operation/yield","id":77}`) // before any request: not remembered
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	c.send(`{"type":"operation/yield","id":1}`) // a finished session/open
	c.send(execute(2, "s", `text("a"); await tools.tool({}); text("b"); await tools.tool({}); text("c");`))
	c.expect(started(2, "1"))
	first := c.recv()
	if typeOf(first) != "delegate/request" {
		t.Fatalf("want the first tool call, got %s", first)
	}
	c.send(`{"type":"operation/yield","id":2}`)
	if got := c.recv(); !strings.HasPrefix(got, `{"type":"execute/initialResponse","id":2,"result":{"status":"ok","value":{"Yielded":{"cell_id":"1","content_items":[{"type":"input_text","text":"a"}],"code_mode_host_duration_ns":`) {
		t.Fatalf("after operation/yield: %s", got)
	}
	c.send(`{"type":"operation/yield","id":2}`) // already answered
	c.send(`{"type":"operation/request","id":3,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":3600000}}}`)
	c.send(fmt.Sprintf(`{"type":"delegate/response","id":%d,"result":{"status":"ok","value":{"type":"tool/result","result":1}}}`, delegateID(t, first)))
	second := c.recv()
	if typeOf(second) != "delegate/request" {
		t.Fatalf("want the second tool call, got %s", second)
	}
	c.send(`{"type":"operation/yield","id":3}`)
	if got := c.recv(); !strings.HasPrefix(got, `{"type":"operation/response","id":3,"result":{"status":"ok","value":{"type":"wait/completed","outcome":{"LiveCell":{"Yielded":{"cell_id":"1","content_items":[{"type":"input_text","text":"b"}],"code_mode_host_duration_ns":`) {
		t.Fatalf("after operation/yield of the wait: %s", got)
	}
	c.send(fmt.Sprintf(`{"type":"delegate/response","id":%d,"result":{"status":"ok","value":{"type":"tool/result","result":1}}}`, delegateID(t, second)))
	c.send(`{"type":"operation/request","id":4,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":3600000}}}`)
	got := c.recv()
	if !strings.HasPrefix(got, `{"type":"operation/response","id":4,"result":{"status":"ok","value":{"type":"wait/completed","outcome":{"LiveCell":{"Result":{"cell_id":"1","content_items":[{"type":"input_text","text":"c"}],"error_text":null,"result_buffered_for_ns":`) {
		t.Fatalf("final wait: %s", got)
	}
	c.expect(`{"type":"cell/closed","sessionId":"s","cellId":"1"}`)
}

// An older generation's host refuses operation/yield as an unknown variant and ends the
// connection: a host serves exactly its generation's wire, and a frame that does not decode ends
// the connection (docs/protocol/v1.md#unknown-fields).
func TestOperationYieldIsUnknownBeforeBoundedOutput(t *testing.T) {
	checkLeaks(t)
	c := serveRaw(t, New(newProvider(t), WithGeneration(wirev1.GenerationHostDuration))).ready()
	c.send(`{"type":"operation/yield","id":1}`)
	c.drain()
	if err := c.serveResult(); err == nil || !strings.Contains(err.Error(), "unknown variant `operation/yield`") {
		t.Fatalf("ServeConn: %v", err)
	}
}

// Host-side truncation in Codex's format (frames captured from Codex 0.171's host): a single
// text item gets the Warning header; several items keep images and say what was omitted; a
// failed script's error becomes an item of its own; a session without outputTruncation "server"
// is never truncated.
func TestServerTruncationInCodexFormat(t *testing.T) {
	checkLeaks(t)
	c := serveRaw(t, New(newProvider(t))).readyWithBoundedOutput()
	c.send(`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","outputTruncation":"server"}}`)
	c.expect(ready(1, "s"))
	c.send(`{"type":"operation/request","id":2,"request":{"method":"session/open","sessionId":"whole"}}`)
	c.expect(ready(2, "whole"))
	source := `text("x".repeat(4000) + "END")`
	cases := []struct {
		session, source string
		budget          string
		want            string
		errorText       string // the JSON of error_text; "" for null
	}{
		{"s", source, "10", `[{"type":"input_text","text":"Warning: truncated output (original token count: 1001)\nTotal output lines: 1\n\nxxxxxxxxxxxxxxxxxxxx…991 tokens truncated…xxxxxxxxxxxxxxxxxEND"}]`, ""},
		{"s", source, "null", `[{"type":"input_text","text":"` + strings.Repeat("x", 4000) + `END"}]`, ""},
		{"s", `text("a".repeat(300)); text("b".repeat(300)); image("data:image/png;base64,AAAA")`, "20",
			`[{"type":"input_text","text":"` + strings.Repeat("a", 40) + `…55 tokens truncated…` + strings.Repeat("a", 40) + `"},{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"high"},{"type":"input_text","text":"[omitted 1 text items ...]"}]`, ""},
		{"whole", source, "10", `[{"type":"input_text","text":"` + strings.Repeat("x", 4000) + `END"}]`, ""},
		// Budget 0 (observed on Codex 0.171's host): only the marker under the header; with an
		// image, the texts are all omitted.
		{"s", source, "0", `[{"type":"input_text","text":"Warning: truncated output (original token count: 1001)\nTotal output lines: 1\n\n…1001 tokens truncated…"}]`, ""},
		{"s", `text("a"); text("b"); image("data:image/png;base64,AAAA")`, "0", `[{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"high"},{"type":"input_text","text":"[omitted 2 text items ...]"}]`, ""},
		// A failed script's error is one more item, truncated with the rest; error_text stays.
		{"s", `text("before"); throw "boom"`, "null", `[{"type":"input_text","text":"before"},{"type":"input_text","text":"Script error:\nboom"}]`, `"boom"`},
		{"s", `text("a"); throw "e".repeat(400)`, "10", `[{"type":"input_text","text":"Warning: truncated output (original token count: 104)\nTotal output lines: 3\n\na\nScript error:\neeee…94 tokens truncated…` + strings.Repeat("e", 20) + `"}]`, `"` + strings.Repeat("e", 400) + `"`},
		{"whole", `text("before"); throw "boom"`, "null", `[{"type":"input_text","text":"before"}]`, `"boom"`},
	}
	for i, k := range cases {
		id := 10 + i
		c.send(fmt.Sprintf(`{"type":"operation/request","id":%d,"request":{"method":"session/execute","sessionId":%q,"request":{"tool_call_id":"call","enabled_tools":[],"source":%q,"yield_time_ms":3600000,"max_output_tokens":%s}}}`, id, k.session, k.source, k.budget))
		var initial string
		for initial == "" {
			if got := c.recv(); typeOf(got) == "execute/initialResponse" {
				initial = got
			}
		}
		prefix := fmt.Sprintf(`{"type":"execute/initialResponse","id":%d,"result":{"status":"ok","value":{"Result":{"cell_id":`, id)
		errorText := k.errorText
		if errorText == "" {
			errorText = "null"
		}
		if !strings.HasPrefix(initial, prefix) || !strings.Contains(initial, `"content_items":`+k.want+`,"error_text":`+errorText+`,`) {
			t.Errorf("case %d (%s, budget %s): %.600s\nwant content %.300s", i, k.session, k.budget, initial, k.want)
		}
	}
}

// outputTruncation values and maxOutputTokens types with serde's texts: a bad one ends the
// connection with the decode error.
func TestBoundedOutputDecodeFailuresEndTheConnection(t *testing.T) {
	cases := map[string]string{
		`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","outputTruncation":{}}}`:                   "invalid value: map, expected map with a single key",
		`{"type":"operation/request","id":1,"request":{"method":"session/open","sessionId":"s","outputTruncation":"x"}}`:                  "unknown variant `x`, expected `client` or `server`",
		`{"type":"operation/request","id":1,"request":{"method":"session/terminate","sessionId":"s","cellId":"1","maxOutputTokens":-1}}`:  "invalid value: integer `-1`, expected usize",
		`{"type":"operation/request","id":1,"request":{"method":"session/terminate","sessionId":"s","cellId":"1","maxOutputTokens":"x"}}`: `invalid type: string "x", expected usize`,
		`{"type":"operation/yield"}`: "missing field `id`",
	}
	for frame, want := range cases {
		t.Run(want, func(t *testing.T) {
			checkLeaks(t)
			c := serveRaw(t, New(newProvider(t))).readyWithBoundedOutput()
			c.send(frame)
			c.drain()
			if err := c.serveResult(); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("ServeConn: %v; want %q", err, want)
			}
		})
	}
}
