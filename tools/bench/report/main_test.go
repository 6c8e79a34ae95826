package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestReportPairsBenchmarksWithRatios(t *testing.T) {
	ours, err := parse(strings.NewReader("goos: linux\nBenchmarkCellStart-2   \t 1000\t 500000 ns/op\t 120 B/op\nBenchmarkIdle-2 1 0 ns/op 400000 heap-bytes/session\n"))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := parse(strings.NewReader("BenchmarkCellStartText 10 250000 ns/op\nBenchmarkIdleSessionMemory 200 0 ns/op 100000 heap-bytes/session\n"))
	var out bytes.Buffer
	if err := printTable(&out, ours, base, nil, []string{"CellStart=CellStartText", "Idle=IdleSessionMemory@heap-bytes/session", "Gone=CellStartText"}); err != nil {
		t.Fatal(err)
	}
	want := "| CellStart | 500.0 µs | 250.0 µs | 2× |\n" +
		"| Idle (heap-bytes/session) | 400000 heap-bytes/session | 100000 heap-bytes/session | 4× |\n" +
		"| Gone | missing | 250.0 µs | — |\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Fatalf("table:\n%s\nwant suffix:\n%s", out.String(), want)
	}
}

func TestReportComparesWithAnEarlierCommit(t *testing.T) {
	ours, _ := parse(strings.NewReader("BenchmarkCellStart-2 1000 100000 ns/op\nBenchmarkSustained-2 1 0 ns/op 12000 calls/s\n"))
	before, _ := parse(strings.NewReader("BenchmarkCellStart-2 1000 400000 ns/op\nBenchmarkSustained-2 1 0 ns/op 3000 calls/s\n"))
	base, _ := parse(strings.NewReader("BenchmarkCellStartText 10 50000 ns/op\n"))
	var out bytes.Buffer
	if err := printTable(&out, ours, base, before, []string{"CellStart=CellStartText", "Sustained=-@calls/s"}); err != nil {
		t.Fatal(err)
	}
	want := "| CellStart | 400.0 µs | 100.0 µs | 50.0 µs | 2× | 0.25× |\n" +
		"| Sustained (calls/s) | 3000 calls/s | 12000 calls/s | — | — | 4× |\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Fatalf("table:\n%s\nwant suffix:\n%s", out.String(), want)
	}
}
