package jsruntime

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Helpers of the attack suites, shared by the white-box ones and, through export_test.go, by the
// black-box attack_imports_test.go.

// importSpecifiers are QuickJS's own modules under every name a cell might try.
var importSpecifiers = []string{"qjs:os", "qjs:std", "qjs:bjson", "os", "std"}

// jsonText is v as JSON: a JavaScript literal (U+2028 and U+2029 come out escaped, which
// JavaScript string literals allow too).
func jsonText(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runEveryOutput runs src in s, following yields, and returns every item the cell output and its
// error text ("<nil>" when it succeeded).
func runEveryOutput(t testing.TB, s codemode.Session, src string, tools ...codemode.ToolDefinition) ([]codemode.ContentItem, string) {
	t.Helper()
	r := executeCell(t, s, src, tools...)
	if r.Kind != codemode.Result {
		t.Fatalf("response kind %v, want Result: %+v", r.Kind, r)
	}
	return r.ContentItems, errorTextOf(r)
}

// expectTexts runs src in s and checks that it succeeded with exactly the texts want.
func expectTexts(t testing.TB, s codemode.Session, src string, want []string, tools ...codemode.ToolDefinition) {
	t.Helper()
	items, errText := runEveryOutput(t, s, src, tools...)
	if got := textsOf(items); errText != "<nil>" || !reflect.DeepEqual(got, want) {
		t.Errorf("error %s\ngot  %q\nwant %q", errText, got, want)
	}
}

// expectFailure runs src in s and checks that it failed with exactly errText and the texts want.
func expectFailure(t testing.TB, s codemode.Session, src, errText string, want []string, tools ...codemode.ToolDefinition) {
	t.Helper()
	items, got := runEveryOutput(t, s, src, tools...)
	if texts := textsOf(items); got != errText || !reflect.DeepEqual(texts, want) {
		t.Errorf("error %q\nwant  %q\ntexts %q\nwant  %q", got, errText, texts, want)
	}
}
