package codemodetest

import (
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

func TestCheckMissingAcceptsTheContractOutcome(t *testing.T) {
	checkMissing(t, "missing", codemode.MissingCellOutcome("missing"), "missing")
}

func TestSameItemsTreatsNilAndEmptyAlike(t *testing.T) {
	if !sameItems(nil, []codemode.ContentItem{}) || sameItems(nil, texts("a")) {
		t.Fatal("nil and empty must be equal, and differ from a non-empty list")
	}
	if sameItems(texts("a"), []codemode.ContentItem{&codemode.InputText{Text: "a"}}) {
		t.Fatal("a pointer item must not match a value item")
	}
}

func TestSameJSONComparesValues(t *testing.T) {
	if !sameJSON([]byte(`{"a":1,"b":[1,2]}`), []byte(`{ "b": [1, 2], "a": 1 }`)) {
		t.Fatal("equal documents compared unequal")
	}
	if sameJSON([]byte(`{"a":1}`), []byte(`{"a":2}`)) {
		t.Fatal("different documents compared equal")
	}
}

func TestDescribeNamesEveryItem(t *testing.T) {
	r := codemode.RuntimeResponse{Kind: codemode.Result, CellID: "3", ErrorText: strp("boom"), ContentItems: []codemode.ContentItem{
		codemode.InputText{Text: "t"}, codemode.InputImage{ImageURL: "data:x", Detail: "high"}, codemode.InputAudio{AudioURL: "data:y"},
	}}
	want := `Result{cell="3" items=[text "t", image "data:x" detail="high", audio "data:y"] error="boom"}`
	if got := describe(r); got != want {
		t.Fatalf("describe = %s, want %s", got, want)
	}
}

func TestCaseNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range allCases() {
		if seen[c.name] {
			t.Fatalf("duplicate subtest name %q", c.name)
		}
		seen[c.name] = true
	}
}
