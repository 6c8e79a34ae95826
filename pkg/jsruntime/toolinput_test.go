package jsruntime_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/serdejson"
)

// TestToolInputsCrossAsJSONStringifyWrites holds the input path of ADR 62 to the one it replaced:
// for every input, long strings or not, the delegate receives exactly the text JSON.stringify
// writes in the cell, or the call throws serde_json's refusal of that text (lone surrogates,
// nesting), column included. Long strings of every kind are quoted by Go: escapes, control
// characters, Latin-1, wide and astral characters, lone surrogates, at the root, in arrays, beside
// long keys (which stay in the skeleton), more of them than a batch of results passes, and inputs
// whose toJSON or getters call tools themselves while their own serialization runs.
func TestToolInputsCrossAsJSONStringifyWrites(t *testing.T) {
	var mu sync.Mutex
	var got []string
	d := newRecorderNoLog(func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		mu.Lock()
		got = append(got, string(call.Input))
		mu.Unlock()
		return json.RawMessage(`1`), nil
	})
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{})
	r := jsruntime.ExecuteCell(t, s, `
		const L = (s, n) => s.repeat(Math.ceil(n / s.length)).slice(0, n);
		const cases = [
			{s: L("x", 8192)},
			{s: L("x", 8191), t: L("y", 8192)},
			L("root", 70000),
			{a: [L("a\"b\\c\n\t\u0001\u001f\u007f", 9000), "short", L("é", 9000)], [L("k", 9000)]: L("v", 8192)},
			{w: L("€😀\u2028", 12000), z: L("\u00ff", 10000) + "\u0100"},
			{lone: L("y", 9000) + "\ud800", other: L("z", 9000)},
			{lone: L("y", 9000) + "\udc00" + L("q", 10)},
			{pair: L("y", 9000) + "\ud83d\ude00" + "\ud800"},
			{short: "\ud800", long: L("x", 9000)},
			Array.from({length: 100}, (_, i) => L(String.fromCharCode(65 + i % 26), 8192 + i)),
			(() => { let v = L("d", 9000); for (let i = 0; i < 130; i++) v = [v]; return v })(),
			(() => { let v = L("d", 9000); for (let i = 0; i < 120; i++) v = {v}; return v })(),
			{n: 1, b: true, nul: null, und: undefined, f() {}, date: new Date(0), str: new String(L("S", 9000))},
			{toJSON() { tools.rec({inner: L("i", 9000)}); return {outer: L("o", 9000)} }},
			{get g() { tools.rec(L("g", 9000)); return L("h", 9000) }},
			L("x", 300),
			"a\\b",
		];
		const out = [];
		for (const v of cases) {
			const want = JSON.stringify(v);
			try {
				await tools.rec(v);
				out.push("sent " + JSON.stringify(want));
			} catch (e) {
				out.push("threw " + JSON.stringify(String(e)) + " " + JSON.stringify(want));
			}
		}
		text(JSON.stringify(out));`, jsruntime.TestTool("rec"))
	if r.ErrorText != nil {
		t.Fatal(jsruntime.ErrorTextOf(r))
	}
	var outcomes []string
	if err := json.Unmarshal([]byte(jsruntime.TextsOf(r.ContentItems)[0]), &outcomes); err != nil {
		t.Fatal(err)
	}
	sent := 0
	if len(outcomes) != 17 {
		t.Fatalf("%d outcomes", len(outcomes))
	}
	for i, o := range outcomes {
		kind, rest, _ := strings.Cut(o, " ")
		var msg, want string
		if kind == "threw" {
			dec := json.NewDecoder(strings.NewReader(rest))
			if dec.Decode(&msg) != nil || dec.Decode(&want) != nil {
				t.Fatalf("case %d: %.80s", i, rest)
			}
		} else if json.Unmarshal([]byte(rest), &want) != nil {
			t.Fatalf("case %d: %.80s", i, rest)
		}
		// What serde_json says of the text JSON.stringify wrote decides whether the call throws.
		_, refusal := serdejson.Parse([]byte(want))
		switch {
		case refusal != nil && kind != "threw":
			t.Errorf("case %d was sent, want the refusal %q", i, refusal)
		case refusal != nil && msg != "failed to serialize JavaScript value: "+refusal.Error():
			t.Errorf("case %d threw %q, want the refusal %q", i, msg, refusal)
		case refusal == nil && kind != "sent":
			t.Errorf("case %d threw %q", i, msg)
		case refusal == nil:
			sent++
		}
	}
	// The delegate saw each sent input, and the inputs tools were called with on the way, as
	// JSON.stringify wrote them (the echoed text above).
	mu.Lock()
	defer mu.Unlock()
	var wants []string
	for _, o := range outcomes {
		if kind, rest, _ := strings.Cut(o, " "); kind == "sent" {
			var w string
			_ = json.Unmarshal([]byte(rest), &w)
			wants = append(wants, w)
		}
	}
	matched := 0
	for _, g := range got {
		if matched < len(wants) && g == wants[matched] {
			matched++
		}
	}
	if matched != len(wants) || sent != len(wants) {
		t.Errorf("the delegate received %d of the %d sent inputs as JSON.stringify wrote them", matched, len(wants))
	}
	// Four lone-surrogate inputs and the one nested 131 deep are refused.
	if sent != len(outcomes)-5 {
		t.Errorf("%d inputs were sent, want all but 5", sent)
	}
	// toJSON and the getter call a tool each time they run: for the cell's own stringify too.
	if len(got) != sent+4 {
		t.Errorf("the delegate received %d inputs, want %d sent and 4 made by toJSON and a getter", len(got), sent)
	}
}
