package codemodetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// want describes an expected RuntimeResponse. Items are compared exactly (type and fields).
type want struct {
	kind      codemode.ResponseKind
	cell      codemode.CellID
	items     []codemode.ContentItem
	errorText *string
}

// texts returns InputText items for each string.
func texts(ss ...string) []codemode.ContentItem {
	items := make([]codemode.ContentItem, 0, len(ss))
	for _, s := range ss {
		items = append(items, codemode.InputText{Text: s})
	}
	return items
}

// strp returns a pointer to s.
func strp(s string) *string { return &s }

// checkResponse fails the test unless got matches w.
func checkResponse(t *testing.T, label string, got codemode.RuntimeResponse, w want) {
	t.Helper()
	ok := got.Kind == w.kind && got.CellID == w.cell && sameItems(got.ContentItems, w.items) &&
		sameOptionalString(got.ErrorText, w.errorText)
	if !ok {
		t.Fatalf("%s:\n got %s\nwant %s", label, describe(got),
			describe(codemode.RuntimeResponse{Kind: w.kind, CellID: w.cell, ContentItems: w.items, ErrorText: w.errorText}))
	}
}

// checkResult fails the test unless got is a successful Result of cell with exactly items.
func checkResult(t *testing.T, label string, got codemode.RuntimeResponse, cell codemode.CellID, items ...codemode.ContentItem) {
	t.Helper()
	checkResponse(t, label, got, want{kind: codemode.Result, cell: cell, items: items})
}

// checkMissing fails the test unless o is the MissingCell outcome for id.
func checkMissing(t *testing.T, label string, o codemode.WaitOutcome, id codemode.CellID) {
	t.Helper()
	if !o.Missing {
		t.Fatalf("%s: outcome is LiveCell(%s), want MissingCell", label, describe(o.Response))
	}
	checkResponse(t, label, o.Response, want{kind: codemode.Result, cell: id,
		errorText: strp(fmt.Sprintf("exec cell %s not found", id))})
}

// checkLive fails the test if o is a MissingCell outcome and returns its response.
func checkLive(t *testing.T, label string, o codemode.WaitOutcome) codemode.RuntimeResponse {
	t.Helper()
	if o.Missing {
		t.Fatalf("%s: outcome is MissingCell(%s), want LiveCell", label, describe(o.Response))
	}
	return o.Response
}

// checkErrorText fails the test unless err's text is exactly text.
func checkErrorText(t *testing.T, label string, err error, text string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %q", label, text)
	}
	if err.Error() != text {
		t.Fatalf("%s: error %q, want exactly %q", label, err.Error(), text)
	}
}

// textsOf returns the texts of a response's items and fails the test on any other item type.
func textsOf(t *testing.T, r codemode.RuntimeResponse) []string {
	t.Helper()
	out := make([]string, 0, len(r.ContentItems))
	for _, it := range r.ContentItems {
		text, ok := it.(codemode.InputText)
		if !ok {
			t.Fatalf("response %s holds a non-text item %#v", describe(r), it)
		}
		out = append(out, text.Text)
	}
	return out
}

// sameItems compares item lists; nil and empty are equal.
func sameItems(a, b []codemode.ContentItem) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return reflect.DeepEqual(a, b)
}

func sameOptionalString(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// describe renders a response for failure messages.
func describe(r codemode.RuntimeResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s{cell=%q items=[", r.Kind, r.CellID)
	for i, it := range r.ContentItems {
		if i > 0 {
			b.WriteString(", ")
		}
		switch v := it.(type) {
		case codemode.InputText:
			fmt.Fprintf(&b, "text %q", v.Text)
		case codemode.InputImage:
			fmt.Fprintf(&b, "image %q detail=%q", v.ImageURL, v.Detail)
		case codemode.InputAudio:
			fmt.Fprintf(&b, "audio %q", v.AudioURL)
		default:
			fmt.Fprintf(&b, "%T %#v", it, it)
		}
	}
	b.WriteString("]")
	if r.ErrorText != nil {
		fmt.Fprintf(&b, " error=%q", *r.ErrorText)
	}
	b.WriteString("}")
	return b.String()
}

// sameJSON reports whether two JSON documents are equal as values (key order and spacing aside).
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

// bg returns a context bounded by opTimeout for calls that run outside the fixture helpers.
func bg() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), opTimeout)
}

// jsString renders s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
