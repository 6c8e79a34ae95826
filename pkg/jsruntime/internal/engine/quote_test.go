package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGoQuotesStringsAsJSONStringify holds quoteFlat (ADR 62) to QuickJS's own JSON.stringify:
// install verified it on the probes (else the engine would quote every string in wasm, correct
// but slow), and it agrees on random strings of every kind of code unit, both widths.
func TestGoQuotesStringsAsJSONStringify(t *testing.T) {
	e := newTestEngine(t)
	if !e.directQuote {
		t.Fatal("install did not verify Go's quoting against JSON.stringify")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	units := []int{0, 1, 8, 9, 10, 12, 13, 0x1f, ' ', '"', '/', '\\', 'a', 0x7f, 0x80, 0xe9, 0xff,
		0x100, 0x2028, 0x20ac, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0xfeff, 0xffff}
	for i := range 200 {
		n := rng.IntN(40)
		codes := make([]string, n)
		for j := range codes {
			u := units[rng.IntN(len(units))]
			if i%2 == 0 && u > 0xff { // half the strings stay Latin-1
				u &= 0xff
			}
			codes[j] = fmt.Sprint(u)
		}
		src := "String.fromCharCode(" + strings.Join(codes, ",") + ")"
		v, err := e.evalSource("quote_test.js", src)
		if err != nil {
			t.Fatal(err)
		}
		got, flatErr := e.quoteFlat(nil, uint32(v))
		want, err := e.callValue(e.quoteFn, v, "")
		if err != nil {
			t.Fatal(err)
		}
		wantText, err := e.readText(want)
		e.free(want)
		e.free(v)
		if flatErr != nil || err != nil || string(got) != wantText {
			t.Fatalf("%s: Go quoted %q, JSON.stringify %q (%v %v)", src, got, wantText, flatErr, err)
		}
	}
}
