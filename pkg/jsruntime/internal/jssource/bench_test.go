package jssource

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/js"
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

// BenchmarkModule2KB is the cost Module adds to a typical cell, uncached. Besides wall time it
// reports the process's CPU time per op (cpu-µs/op, GC included), which stays meaningful when
// other jobs share the cores and stretch the wall time.
func BenchmarkModule2KB(b *testing.B) {
	src := cell2k(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	cpu := processCPU(b)
	for b.Loop() {
		if _, err := Module(src); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU(b)-cpu).Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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

// BenchmarkModule2KBStages splits BenchmarkModule2KB into its stages, for profiles: the
// parser's parse, its lexer alone (the printer lexes once more), the AST walk and the print.
func BenchmarkModule2KBStages(b *testing.B) {
	src := cell2k(b)
	buf := sourceBuffer(src)
	tree, err := parseProgram(buf)
	if err != nil {
		b.Fatal(err)
	}
	f, err := collect(tree, buf)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = parseProgram(buf)
		}
	})
	b.Run("lex", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lx := js.NewLexer(parse.NewInputBytes(buf))
			for tt, _ := lx.Next(); tt != js.ErrorToken; tt, _ = lx.Next() {
			}
		}
	})
	b.Run("collect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = collect(tree, buf)
		}
	})
	b.Run("print", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = print(buf, goalModule, f.regexes, nil)
		}
	})
}
