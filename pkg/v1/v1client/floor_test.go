package v1client_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// echoModeEnv makes the test binary a bare frame echo, the floor BenchmarkV1Floor measures:
// "stdio" echoes the frames read on stdin to stdout, "tcp:ADDR" dials ADDR and echoes there.
// Each frame is read through a bufio.Reader and written back with one write, on one goroutine:
// the least two Go processes can do per message.
const echoModeEnv = "CODEMODE_V1_TEST_ECHO"

// floorGap is the work between two round trips of the floor benchmark, about what a cell's
// in-process tool round trip costs (BenchmarkV1/inprocess/ToolRoundTrip). Threads that sleep
// between messages wake slower than threads in a tight ping-pong, so the floor is measured with
// a gap like the cell's.
const floorGap = 30 * time.Microsecond

func echoMain(mode string) int {
	var rw io.ReadWriter = struct {
		io.Reader
		io.Writer
	}{os.Stdin, os.Stdout}
	if addr, ok := strings.CutPrefix(mode, "tcp:"); ok {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		rw = c
	}
	r := v1frame.NewReader(bufio.NewReader(rw))
	w := v1frame.NewWriter(rw)
	for {
		payload, err := r.Read()
		if err != nil {
			return 0
		}
		if err := w.Write(payload); err != nil {
			return 0
		}
	}
}

// BenchmarkV1Floor measures what any two processes pay on this machine for one message each way
// over a pipe and over TCP on 127.0.0.1, with floorGap of work between round trips: a bare frame
// echo (echoMain), no JSON, no runtime. µs/roundtrip excludes the gap. BenchmarkV1's added µs per
// tool round trip (transport minus in-process) are compared with it in docs/benchmarks.md.
func BenchmarkV1Floor(b *testing.B) {
	b.Run("pipe", func(b *testing.B) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), echoModeEnv+"=stdio")
		w, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		r, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { _ = w.Close(); _ = cmd.Wait() }()
		pingPong(b, r, w)
	})
	b.Run("tcp", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		defer ln.Close()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), echoModeEnv+"=tcp:"+ln.Addr().String())
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		c, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = c.Close(); _ = cmd.Wait() }()
		pingPong(b, c, c)
	})
}

// pingPong sends a frame of a delegate request's size and reads its echo, 100 times per op,
// with floorGap of busy work before each.
func pingPong(b *testing.B, r io.Reader, w io.Writer) {
	const calls = 100
	fr, fw := v1frame.NewReader(bufio.NewReader(r)), v1frame.NewWriter(w)
	payload := []byte(`{"type":"delegate/request","id":1,"session_id":"s","request":{"type":"tool/invoke","invocation":{"cell_id":"1","runtime_tool_call_id":"tool-1","tool_name":{"name":"echo"},"tool_kind":"function","input":1}}}`)
	roundTrip := func() {
		spin(floorGap)
		if err := fw.Write(payload); err != nil {
			b.Fatal(err)
		}
		if _, err := fr.Read(); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip()
	for b.Loop() {
		for range calls {
			roundTrip()
		}
	}
	perCall := float64(b.Elapsed().Nanoseconds())/float64(b.N*calls) - float64(floorGap.Nanoseconds())
	b.ReportMetric(perCall/1e3, "µs/roundtrip")
}

// spin keeps the goroutine busy for d, as a cell's JavaScript keeps its loop busy.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
