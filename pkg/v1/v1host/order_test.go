package v1host

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The order of a cell's frames on the wire (runtime parity, issue 23; docs/protocol/v1.md#execute),
// which a client reads as the script's story: a cell's notifications and tool calls come in the
// order the script made them, every tool call a script started comes (and then its cancellation)
// even when the cell ends in the same turn, and cell/closed comes only after the cell's terminal
// response. Codex's host sends them so. Each of these raced in codemode-host
// before; each test below failed in some of its runs then (run them with -count=200 -race on
// loaded cores to see the old races), and must pass in every run now.

// event summarizes a host frame for comparing orders: "notify TEXT", "call INPUT", "cancel",
// "Yielded TEXTS", "Result TEXTS", "Terminated TEXTS", "closed", or the frame's type.
func event(t *testing.T, payload string) string {
	t.Helper()
	var f struct {
		Type    string          `json:"type"`
		Request json.RawMessage `json:"request"`
		Result  struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(payload), &f); err != nil {
		t.Fatalf("%s: %v", payload, err)
	}
	switch f.Type {
	case "delegate/request":
		var r struct {
			Type       string `json:"type"`
			Text       string `json:"text"`
			Invocation struct {
				Input json.RawMessage `json:"input"`
			} `json:"invocation"`
		}
		_ = json.Unmarshal(f.Request, &r)
		if r.Type == "notification/send" {
			return "notify " + r.Text
		}
		return "call " + string(r.Invocation.Input)
	case "delegate/cancel":
		return "cancel"
	case "cell/closed":
		return "closed"
	case "execute/initialResponse", "operation/response":
		return responseEvent(f.Result.Value)
	}
	return f.Type
}

// responseEvent summarizes a runtime response, bare or inside wait/completed.
func responseEvent(value json.RawMessage) string {
	var w struct {
		Type    string                     `json:"type"`
		Outcome map[string]json.RawMessage `json:"outcome"`
	}
	_ = json.Unmarshal(value, &w)
	if w.Type == "wait/completed" {
		value = w.Outcome["LiveCell"]
	} else if w.Type != "" {
		return w.Type
	}
	var r map[string]struct {
		Items []struct {
			Text string `json:"text"`
		} `json:"content_items"`
	}
	_ = json.Unmarshal(value, &r)
	for kind, v := range r {
		var texts []string
		for _, it := range v.Items {
			texts = append(texts, it.Text)
		}
		return kind + " " + strings.Join(texts, ",")
	}
	return string(value)
}

// events reads n frames and summarizes them, answering every notification as delivered.
func (c *rawClient) events(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		f := c.recv()
		e := event(t, f)
		if strings.HasPrefix(e, "notify ") {
			c.send(fmt.Sprintf(`{"type":"delegate/response","id":%d,"result":{"status":"ok","value":{"type":"notification/delivered"}}}`, delegateID(t, f)))
		}
		out = append(out, e)
	}
	return out
}

func wantEvents(t *testing.T, label string, got []string, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %q\nwant %q", label, got, want)
	}
}

func TestNotificationsToolCallsAndYieldsGoOutInTheOrderWritten(t *testing.T) {
	c := serveRaw(t, New(newProvider(t))).readyWithBoundedOutput()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	c.send(execute(2, "s", `notify("n1"); tools.tool({i: 1}); notify("n2"); tools.tool({i: 2}); yield_control(); notify("n3"); tools.tool({i: 3}); await new Promise(() => {});`))
	c.expect(started(2, "1"))
	wantEvents(t, "frames", c.events(t, 7), "notify n1", `call {"i":1}`, "notify n2", `call {"i":2}`, "Yielded ", "notify n3", `call {"i":3}`)
}

func TestEveryToolCallAScriptStartedIsSentThenCancelled(t *testing.T) {
	for _, src := range []string{
		`tools.tool({n: 1}); exit();`,
		`tools.tool({n: 1}); throw "after the call";`,
		`tools.tool({n: 1}); text("main done");`,
		`await null; tools.tool({n: 1}); await null; exit();`,
	} {
		c := serveRaw(t, New(newProvider(t))).readyWithBoundedOutput()
		c.send(open(1, "s"))
		c.expect(ready(1, "s"))
		c.send(execute(2, "s", src))
		c.expect(started(2, "1"))
		got := c.events(t, 4)
		result := "Result "
		if strings.Contains(src, "main done") {
			result = "Result main done"
		}
		wantEvents(t, src, got, `call {"n":1}`, "cancel", result, "closed")
	}
}

func TestCellClosedFollowsTheTerminalResponse(t *testing.T) {
	c := serveRaw(t, New(newProvider(t))).readyWithBoundedOutput()
	c.send(open(1, "s"))
	c.expect(ready(1, "s"))
	// A wait collects the Result: cell/closed follows wait/completed.
	c.send(execute(2, "s", `text("a"); yield_control(); await tools.tool({}); text("b");`))
	c.expect(started(2, "1"))
	wantEvents(t, "yield", c.events(t, 1), "Yielded a")
	call := c.recv()
	c.send(`{"type":"operation/request","id":3,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1","yield_time_ms":3600000}}}`)
	c.send(fmt.Sprintf(`{"type":"delegate/response","id":%d,"result":{"status":"ok","value":{"type":"tool/result","result":1}}}`, delegateID(t, call)))
	wantEvents(t, "wait", c.events(t, 2), "Result b", "closed")
	// A terminate: the cancellation of the call it abandoned, its answer, then cell/closed.
	c.send(execute(4, "s", `text("c"); yield_control(); await tools.tool({});`))
	c.expect(started(4, "2"))
	wantEvents(t, "second cell", c.events(t, 2), "Yielded c", "call {}")
	c.send(`{"type":"operation/request","id":5,"request":{"method":"session/terminate","sessionId":"s","cellId":"2"}}`)
	wantEvents(t, "terminate", c.events(t, 3), "cancel", "Terminated ", "closed")
}
