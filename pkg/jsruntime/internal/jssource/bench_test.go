package jssource

import (
	"os"
	"testing"
)

// cell2k is a typical model-written cell of about 2 KB: tool calls, awaits, loops, template
// strings, object literals, a regular expression.
func cell2k(tb testing.TB) string {
	b, err := os.ReadFile("testdata/cell2k.js")
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// BenchmarkModule2KB is the cost Module adds to a typical cell, uncached.
func BenchmarkModule2KB(b *testing.B) {
	src := cell2k(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Module(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScriptSmall is eval of a short expression.
func BenchmarkScriptSmall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Script(`JSON.stringify({ a: 1, b: [1, 2, 3] })`); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFunctionSmall is new Function("a", "b", "return a + b").
func BenchmarkFunctionSmall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Function(PlainFunction, []string{"a", "b"}, "return a + b"); err != nil {
			b.Fatal(err)
		}
	}
}
