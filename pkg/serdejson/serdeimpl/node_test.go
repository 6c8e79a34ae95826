package serdeimpl

import (
	"strings"
	"testing"
	"unsafe"
)

// A short document's strings are slices of one copy of it (Node.shared); a string that leaves the
// tree is a copy of its own, so that what a decoded message keeps does not keep its document.
func TestStringsLeavingASharedDocumentAreTheirOwn(t *testing.T) {
	doc, err := ParseDocument([]byte(`{"s":"a string","m":{"key":1},"e":"two","u":"one"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !doc.shared {
		t.Fatal("a short document is not shared")
	}
	s := doc.member("s")
	got, err := DecodeString(s, "s")
	if err != nil || got != "a string" {
		t.Fatalf("DecodeString = %q, %v", got, err)
	}
	if unsafe.StringData(got) == unsafe.StringData(s.text) {
		t.Error("DecodeString returned the document's own bytes")
	}
	m, err := DecodeMap(doc.member("m"), "m", func(n *Node, path string) (string, error) { return n.text, nil })
	if err != nil || len(m) != 1 {
		t.Fatalf("DecodeMap = %v, %v", m, err)
	}
	for k := range m {
		if k != "key" || unsafe.StringData(k) == unsafe.StringData(doc.member("m").members[0].key) {
			t.Errorf("DecodeMap kept the document's key %q", k)
		}
	}
	// An enum's value is the allowed string itself: nothing of the document is kept.
	allowed := []string{"one", "two"}
	if e, err := DecodeEnum(doc.member("e"), "e", allowed); err != nil || unsafe.StringData(e) != unsafe.StringData(allowed[1]) {
		t.Errorf("DecodeEnum = %q, %v, not the allowed string", e, err)
	}
	if u, err := DecodeUnitEnum(doc.member("u"), "u", allowed); err != nil || unsafe.StringData(u) != unsafe.StringData(allowed[0]) {
		t.Errorf("DecodeUnitEnum = %q, %v, not the variant's string", u, err)
	}
}

// A long document's strings are copies of their own from the start: sharing would make each one
// keep the whole document.
func TestALongDocumentIsNotShared(t *testing.T) {
	doc, err := ParseDocument([]byte(`{"s":"` + strings.Repeat("x", maxSharedDocument) + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	if doc.shared || doc.member("s").shared {
		t.Fatal("a long document is shared")
	}
	got, _ := DecodeString(doc.member("s"), "s")
	if unsafe.StringData(got) != unsafe.StringData(doc.member("s").text) {
		t.Error("a long document's string was copied again")
	}
}

// The tree of a document is made with a few allocations, whatever its size: Nodes from slabs,
// members and items from one arena each, paths only for errors. A wire message of 18 values took
// 48 allocations with a Node, a path and a growing member slice each.
func TestADocumentTakesFewAllocations(t *testing.T) {
	data := []byte(`{"type":"delegate/request","id":7,"sessionId":"0195f6a2-4c1e-7d3a-9b2f-8e1d2c3b4a59","request":{"type":"tool/invoke","invocation":{"cellId":"3","runtimeToolCallId":"tool-42","toolName":{"name":"echo"},"toolKind":"function","input":{"i":41,"list":[1,2,3]}}}}`)
	if _, err := ParseDocument(data); err != nil {
		t.Fatal(err)
	}
	// The document's text, a slab, the member arena, the item arena, the parser's strings with
	// escapes (none here): a parser from the pool adds nothing.
	n := testing.AllocsPerRun(100, func() { _, _ = ParseDocument(data) })
	t.Logf("%.1f allocations", n)
	if n > 6 {
		t.Errorf("ParseDocument made %.0f allocations, want at most 6", n)
	}
}

// A duplicate key's error names its path, which the parser makes only then.
func TestADuplicateKeysPathIsMadeForItsError(t *testing.T) {
	_, err := ParseDocument([]byte(`{"a":[{"b":{}},{"b":{"c":1,"c":2}}]}`))
	if err == nil || err.Error() != "a[1].b: duplicate field `c`" {
		t.Fatalf("%v", err)
	}
}
