package main

import (
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/codemodehq/codemode/pkg/hostprogram"
)

func init() {
	register("host", command{summary: "host [--listen stdio|grpc+stdio://|ws://IP:PORT|grpc://IP:PORT]...: the code-mode host for Codex (services/codemode-host)", run: hostCommand})
	helps["host"] = hostprogram.Help("codemode host")
}

// hostCommand is services/codemode-host under the CLI's name: the same program
// (pkg/hostprogram), flags and exit statuses. Logs go to stderr, never stdout.
func hostCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	return hostprogram.Main("codemode host", args, streams(stdin, stdout, stderr), os.Getenv, signals)
}

// streams are the program's standard streams: the process's own when the CLI runs them
// (v1host.ServeStdio reads a piped standard input through the poller, so a drain can end the
// read), wrapped ones in tests.
func streams(stdin io.Reader, stdout, stderr io.Writer) hostprogram.Streams {
	s := hostprogram.Streams{Stdin: io.NopCloser(stdin), Stdout: nopWriteCloser{stdout}, Stderr: stderr}
	if stdin == os.Stdin {
		s.Stdin = os.Stdin
	}
	if stdout == os.Stdout {
		s.Stdout = os.Stdout
	}
	return s
}

// nopWriteCloser is a Writer whose Close does nothing.
type nopWriteCloser struct{ io.Writer }

// Close does nothing.
func (nopWriteCloser) Close() error { return nil }
