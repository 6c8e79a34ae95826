package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRunTextHi measures `codemode run -` of text("hi") end to end: a built binary from
// process start to exit (runtime start, one cell, output, shutdown). The first iteration warms
// wazero's compilation cache if it is cold; b.N iterations make the average a warm one.
func BenchmarkRunTextHi(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "codemode")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	run := func() {
		cmd := exec.Command(bin, "run", "-")
		cmd.Stdin = strings.NewReader(`text("hi")`)
		out, err := cmd.Output()
		if err != nil || !strings.HasSuffix(string(out), "Output:\nhi\n") {
			b.Fatalf("codemode run: %v, %q", err, out)
		}
	}
	run() // a cold compilation cache is filled here, outside the measurement
	b.ResetTimer()
	for range b.N {
		run()
	}
}
