package jsruntime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// Tool results whose long strings cross made from Go (longstrings.go) must reach the cell as
// JSON.parse of the same text would have built them. The cell compares both: the tool "raw" hands
// it the result's text as a string, and the cell parses that itself.

// longResults are results of every shape the split meets: the long string as the whole result,
// under keys and indices, repeated keys (JSON.parse keeps the last), escapes, non-ASCII and NUL
// (not split), keys with escapes and lone surrogates, "__proto__", and more strings than one
// batch passes.
func longResults() map[string]string {
	long := func(c string) string { return strings.Repeat(c, 70<<10) }
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	many := make([]string, 70)
	for i := range many {
		many[i] = q(strings.Repeat(fmt.Sprint(i%10), 10<<10))
	}
	return map[string]string{
		"whole":      q(long("x")),
		"nested":     `{"a":1,"files":[{"name":"f","content":` + q(long("y")+"\n\t\"end\"") + `},{"name":"g","content":` + q(long("z")) + `}],"n":null}`,
		"repeated":   `{"k":` + q(long("a")) + `,"k":` + q(long("b")) + `,"o":{"k":` + q(long("c")) + `},"o":2,"z":[` + q(long("d")) + `]}`,
		"escapes":    `["` + strings.Repeat(`\u0041\/\\\b\f\r`, 8<<10) + `"]`,
		"non-ascii":  `{"t":` + q(long("é")) + `,"a":` + q(long("a")) + `}`,
		"nul":        `{"t":"` + strings.Repeat(`ab\u0000`, 8<<10) + `","a":` + q(long("a")) + `}`,
		"surrogate":  `{"\ud800":` + q(long("s")) + `,"\udc00":` + q(long("t")) + `,"k\u00e9y\n":` + q(long("u")) + `}`,
		"__proto__":  `{"__proto__":{"x":` + q(long("p")) + `},"y":` + q(long("q")) + `}`,
		"many":       "[" + strings.Join(many, ",") + "]",
		"small-rest": `{"s":` + q(long("w")) + `,"rest":[` + strings.TrimSuffix(strings.Repeat(`{"i":1,"j":[true,false,-1.5e3]},`, 1000), ",") + `]}`,
	}
}

func TestLongStringsOfToolResultsArriveAsJSONParseBuildsThem(t *testing.T) {
	results := longResults()
	d := jsruntime.NewRecorder(func(_ context.Context, call codemode.NestedToolCall) (json.RawMessage, error) {
		var in struct{ Name string }
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return nil, err
		}
		text := results[in.Name]
		if call.ToolName.Name == "raw" {
			b, _ := json.Marshal(text)
			return b, nil
		}
		return json.RawMessage(text), nil
	})
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{})
	for name := range results {
		t.Run(name, func(t *testing.T) {
			// Both results arrive in one batch, so a batch passes the strings of one and parses the
			// other; then the split one alone.
			src := fmt.Sprintf(`
				const [split, raw] = await Promise.all([tools.result({name: %[1]q}), tools.raw({name: %[1]q})]);
				const parsed = JSON.parse(raw);
				const again = await tools.result({name: %[1]q});
				function same(a, b) {
					if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return a === b;
					if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
					const ka = Reflect.ownKeys(a), kb = Reflect.ownKeys(b);
					if (ka.length !== kb.length) return false;
					for (let i = 0; i < ka.length; i++) {
						if (ka[i] !== kb[i]) return false;
						const da = Object.getOwnPropertyDescriptor(a, ka[i]), db = Object.getOwnPropertyDescriptor(b, kb[i]);
						if (da.writable !== db.writable || da.enumerable !== db.enumerable || da.configurable !== db.configurable) return false;
						if (!same(da.value, db.value)) return false;
					}
					return true;
				}
				text(same(split, parsed) && same(again, parsed) ? "same" : "different: " + JSON.stringify(split).slice(0, 200));`, name)
			r := jsruntime.ExecuteCell(t, s, src, jsruntime.TestTool("result"), jsruntime.TestTool("raw"))
			if got := jsruntime.TextsOf(r.ContentItems); r.ErrorText != nil || !reflect.DeepEqual(got, []string{"same"}) {
				t.Fatalf("%s %.300q", jsruntime.ErrorTextOf(r), got)
			}
		})
	}
}

// TestSplitLongStringsFindsTheStringsItMay checks which strings of longResults are split (so the
// test above crosses every shape), and that the skeleton with the strings put back at their
// places decodes as the result does.
func TestSplitLongStringsFindsTheStringsItMay(t *testing.T) {
	want := map[string]int{
		"whole": 1, "nested": 2,
		"repeated":  1, // only "z": "k" and "o" repeat
		"escapes":   1,
		"non-ascii": 1, "nul": 1, // only "a"
		"surrogate": 1, // Go decodes both lone surrogates to U+FFFD: treated as repeated
		"__proto__": 2, "many": 64, "small-rest": 1,
	}
	for name, text := range longResults() {
		skeleton, places, values, ok := jsruntime.SplitLongStrings([]byte(text))
		if !ok || len(values) != want[name] {
			t.Errorf("%s: ok %v, %d strings, want %d", name, ok, len(values), want[name])
			continue
		}
		var orig, rebuilt any
		var steps [][]any
		if err := json.Unmarshal([]byte(text), &orig); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(skeleton, &rebuilt); err != nil {
			t.Fatalf("%s: skeleton: %v", name, err)
		}
		if err := json.Unmarshal([]byte(places), &steps); err != nil {
			t.Fatalf("%s: places %.100s: %v", name, places, err)
		}
		for _, p := range steps {
			rebuilt = place(rebuilt, p[1:], values[int(p[0].(float64))])
		}
		if name != "surrogate" && !reflect.DeepEqual(orig, rebuilt) {
			t.Errorf("%s: rebuilt value differs", name)
		}
	}
	if _, _, _, ok := jsruntime.SplitLongStrings([]byte(`"short"`)); ok {
		t.Error("a short result was split")
	}
}

// place is placeLongStrings of prelude.js on a value decoded by encoding/json.
func place(v any, path []any, s string) any {
	if len(path) == 0 {
		return s
	}
	switch h := v.(type) {
	case map[string]any:
		k := path[0].(string)
		h[k] = place(h[k], path[1:], s)
	case []any:
		i := int(path[0].(float64))
		h[i] = place(h[i], path[1:], s)
	}
	return v
}

// TestLongStringsPastTheHeapCapFailTheCell sends a tool result whose long string does not fit the
// cell's heap: making the string from Go fails as parsing it did, with the heap cap's text, and
// the session's next cell runs.
func TestLongStringsPastTheHeapCapFailTheCell(t *testing.T) {
	const heapCap = 16 << 20
	big, _ := json.Marshal(map[string]string{"s": strings.Repeat("x", 20<<20)})
	d := jsruntime.NewRecorder(func(context.Context, codemode.NestedToolCall) (json.RawMessage, error) { return big, nil })
	s := jsruntime.NewTestSession(t, d, codemode.SessionCellExecutionLimits{MaxHeapSizeBytes: jsruntime.PtrU64(heapCap)})
	r := jsruntime.ExecuteCell(t, s, `text("before"); const r = await tools.big({}); text(r.s.length)`, jsruntime.TestTool("big"))
	if got := jsruntime.ErrorTextOf(r); got != fmt.Sprintf(jsruntime.OutOfMemoryTextFormat, heapCap) || !reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{"before"}) {
		t.Fatalf("%s %q", got, jsruntime.TextsOf(r.ContentItems))
	}
	if r := jsruntime.ExecuteCell(t, s, `text("alive")`); r.ErrorText != nil || !reflect.DeepEqual(jsruntime.TextsOf(r.ContentItems), []string{"alive"}) {
		t.Fatalf("next cell: %s %q", jsruntime.ErrorTextOf(r), jsruntime.TextsOf(r.ContentItems))
	}
}
