package v1client_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/v1/v1host"
)

// hostModeEnv makes the test binary a host process: "stdio" serves V1 on stdin and stdout,
// "ws" listens on 127.0.0.1, prints "ws://ADDR/" on stdout and serves until stdin ends. The
// tests spawn the binary they run in, so every transport test runs against a real process.
const hostModeEnv = "CODEMODE_V1_TEST_HOST"

// hostProfileEnv, when set with hostModeEnv, makes the host process write a CPU profile of
// its first hostProfileSecondsEnv seconds (default 5) to that path; the client's profile is the
// test's -cpuprofile. A process host is killed when the client closes it, so the profile stops
// on a timer. With several host processes in one run, each one overwrites the file: profile one
// benchmark at a time.
const (
	hostProfileEnv        = "CODEMODE_V1_TEST_HOST_CPUPROFILE"
	hostProfileSecondsEnv = "CODEMODE_V1_TEST_HOST_CPUPROFILE_SECONDS"
)

// hostTraceEnv, like hostProfileEnv, makes the host process write an execution trace (runtime/trace)
// of its first hostProfileSecondsEnv seconds to that path: where a round trip waits between
// goroutines and threads, which a CPU profile does not show.
const hostTraceEnv = "CODEMODE_V1_TEST_HOST_TRACE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(echoModeEnv); mode != "" {
		os.Exit(echoMain(mode))
	}
	if mode := os.Getenv(hostModeEnv); mode != "" {
		os.Exit(hostMain(mode))
	}
	os.Exit(m.Run())
}

func hostMain(mode string) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	for _, r := range []recording{
		{hostProfileEnv, "cpu profile", pprof.StartCPUProfile, pprof.StopCPUProfile},
		{hostTraceEnv, "execution trace", trace.Start, trace.Stop},
	} {
		stop, err := r.startIfAsked()
		if err != nil {
			log.Error(r.name, "error", err)
			return 1
		}
		defer stop()
	}
	p, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		log.Error("provider", "error", err)
		return 1
	}
	defer p.Close()
	h := v1host.New(p, v1host.WithLogger(log))
	ctx := context.Background()
	switch mode {
	case "stdio":
		err = h.ServeStdio(ctx, os.Stdin, os.Stdout)
	case "ws":
		err = serveWebSocketUntilStdinEnds(ctx, h)
	default:
		err = fmt.Errorf("unknown host mode %q", mode)
	}
	if err != nil {
		log.Error("host", "error", err)
		return 1
	}
	return 0
}

// recording is a profile or trace the host process writes when its environment variable names a
// file, for its first hostProfileSecondsEnv seconds (a process host is killed, so it stops on a
// timer).
type recording struct {
	env, name   string
	start       func(io.Writer) error
	stopWriting func()
}

func (r recording) startIfAsked() (stop func(), err error) {
	path := os.Getenv(r.env)
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := r.start(f); err != nil {
		return nil, err
	}
	seconds, err := strconv.ParseFloat(os.Getenv(hostProfileSecondsEnv), 64)
	if err != nil {
		seconds = 5
	}
	stop = sync.OnceFunc(func() {
		r.stopWriting()
		_ = f.Close()
	})
	time.AfterFunc(time.Duration(seconds*float64(time.Second)), stop)
	return stop, nil
}

func serveWebSocketUntilStdinEnds(ctx context.Context, h *v1host.Host) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("ws://%s/\n", ln.Addr())
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	return h.ServeWebSocket(ctx, ln)
}

// hostCommand returns the command that runs this test binary as a host in mode.
func hostCommand(mode string) (string, []string, []string) {
	return os.Args[0], []string{"-test.run=^$"}, append(os.Environ(), hostModeEnv+"="+mode)
}

// startWebSocketHost runs a WebSocket host process for the test and returns its URL.
func startWebSocketHost(t testing.TB) string {
	t.Helper()
	path, args, env := hostCommand("ws")
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the WebSocket host printed no address: %v", err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("WebSocket host: %v", err)
		}
	})
	return strings.TrimSpace(line)
}
