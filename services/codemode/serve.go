package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/codemodehq/codemode/pkg/hostprogram"
)

func init() {
	register("serve", command{summary: "serve [--tools FILE]: run the code-mode host on 127.0.0.1 (gRPC/Connect and WebSocket) until Ctrl-C", run: serveCommand})
}

var serveCmd = flagCommand{
	name:     "codemode serve",
	synopsis: "codemode serve [--tools FILE] [--grpc-port N] [--ws-port N] [--allow-origin ORIGIN]... [--memory-budget BYTES] [--log-level LEVEL]",
	help: `usage: codemode serve [flags]

Runs the code-mode host on this machine with both network protocols on 127.0.0.1: gRPC
codex.code_mode.v1.CodeModeHost (also gRPC-Web and Connect, for browsers) and Protocol V1 on a
WebSocket. It prints where to connect and serves until Ctrl-C (or SIGTERM), which terminates
running cells, closes the sessions and exits 0; a second Ctrl-C exits at once. It is
codemode host --listen grpc://127.0.0.1:N --listen ws://127.0.0.1:M with a banner; use
codemode host (or codemode-host) for stdio, other addresses, tokens and limits.

Flags:
  --tools FILE
        a tool manifest (see codemode run --help) whose tools every cell can call, run on this
        machine; a manifest with an error is refused before anything runs.
          codemode serve --tools examples/tools.json
  --grpc-port N
        the gRPC/Connect port (default 0: a free one, printed).
          codemode serve --grpc-port 8766
  --ws-port N
        the WebSocket port (default 0: a free one, printed).
          codemode serve --ws-port 8765
  --allow-origin ORIGIN
        let a browser page from ORIGIN (or *) call the host through Connect (CORS); repeatable.
          codemode serve --allow-origin http://localhost:5173
  --memory-budget BYTES
        keep the host's resident memory under BYTES (digits, or with Ki, Mi, Gi), as
        codemode host --memory-budget does: cells' heaps, their output not yet observed and
        decompressed requests share three quarters of it, and live V1 cells are bounded by it.
        Default: three quarters of the cgroup's memory limit, or 2Gi without one.
          codemode serve --memory-budget 1Gi
  --log-level debug|info|warn|error
        what the host logs on stderr (default warn).
          codemode serve --log-level info
  -h, --help
        print this help.

Exit status: 0 stopped by Ctrl-C or SIGTERM after a clean drain; 1 the host failed (a port in
use, the runtime could not start, the drain overran); 2 wrong invocation or a refused manifest;
130 a second Ctrl-C.

Examples:
  codemode serve
  codemode serve --tools examples/tools.json --grpc-port 8766 --ws-port 8765
`,
}

// serveOptions are the flags of `codemode serve`.
type serveOptions struct {
	tools    string
	grpcPort uint
	wsPort   uint
	origins  []string
	logLevel string
	memory   string
}

// serveFlags defines the flags of `codemode serve` into o.
func serveFlags(o *serveOptions) *flag.FlagSet {
	fs := flag.NewFlagSet(serveCmd.name, flag.ContinueOnError)
	fs.StringVar(&o.tools, "tools", "", "")
	fs.UintVar(&o.grpcPort, "grpc-port", 0, "")
	fs.UintVar(&o.wsPort, "ws-port", 0, "")
	fs.Func("allow-origin", "", func(s string) error {
		o.origins = append(o.origins, s)
		return nil
	})
	fs.StringVar(&o.logLevel, "log-level", "warn", "")
	fs.StringVar(&o.memory, "memory-budget", "", "")
	return fs
}

func serveCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	return serveWith(args, stdin, stdout, stderr, signals)
}

// serveWith is serveCommand with its signals given.
func serveWith(args []string, stdin io.Reader, stdout, stderr io.Writer, signals <-chan os.Signal) int {
	var o serveOptions
	fs := serveFlags(&o)
	if done, status := serveCmd.parse(fs, args, stdout, stderr); done {
		return status
	}
	cfg, err := o.config(fs, stderr)
	if err != nil {
		return serveCmd.wrong(stderr, err.Error())
	}
	hostprogram.ApplyGoMemoryLimit(cfg.MemoryBudget, os.Getenv)
	s := streams(stdin, stdout, stderr)
	p, err := hostprogram.New(cfg, s.Stdin, s.Stdout)
	var usage *hostprogram.UsageError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, usage.Err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "codemode serve: %v\n", err)
		return exitFailed
	}
	p.Name = "codemode"
	bound, err := p.Bind(context.Background())
	if err != nil {
		_ = p.Close()
		fmt.Fprintf(stderr, "codemode serve: %v\n", err)
		return exitFailed
	}
	printBanner(stdout, bound, o.tools, cfg)
	if err := p.Run(signals); err != nil {
		fmt.Fprintf(stderr, "codemode serve: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// config turns the flags into the host's configuration.
func (o serveOptions) config(fs *flag.FlagSet, stderr io.Writer) (hostprogram.Config, error) {
	if fs.NArg() > 0 {
		return hostprogram.Config{}, fmt.Errorf("unexpected argument %q (every setting is a flag)", fs.Arg(0))
	}
	for name, port := range map[string]uint{"--grpc-port": o.grpcPort, "--ws-port": o.wsPort} {
		if port > 65535 {
			return hostprogram.Config{}, fmt.Errorf("%s must be a port number from 0 to 65535, not %d", name, port)
		}
	}
	log, err := hostprogram.NewLogger(stderr, o.logLevel, "text")
	if err != nil {
		return hostprogram.Config{}, err
	}
	budget, err := hostprogram.MemoryBudgetBytes(o.memory)
	if err != nil {
		return hostprogram.Config{}, err
	}
	loopback := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	return hostprogram.Config{
		Listens: []hostprogram.Listen{
			{Transport: hostprogram.GRPC, Addr: netip.AddrPortFrom(loopback, uint16(o.grpcPort))},
			{Transport: hostprogram.WebSocket, Addr: netip.AddrPortFrom(loopback, uint16(o.wsPort))},
		},
		Tools:        o.tools,
		AllowOrigins: o.origins,
		MemoryBudget: budget,
		Logger:       log,
	}, nil
}

// printBanner says where to connect, what the cells get and how to stop, in one screen.
func printBanner(w io.Writer, bound []hostprogram.Bound, tools string, cfg hostprogram.Config) {
	fmt.Fprintln(w, "codemode serve: the code-mode host is running on 127.0.0.1 (this machine only).")
	fmt.Fprintln(w)
	for _, b := range bound {
		switch b.Listen.Transport {
		case hostprogram.GRPC:
			fmt.Fprintf(w, "  gRPC, gRPC-Web, Connect   %s   (Codex 0.169+: codex app-server --code-mode-host %s)\n", b.URL, b.URL)
		case hostprogram.WebSocket:
			fmt.Fprintf(w, "  Protocol V1 (WebSocket)   %s   (Codex before 0.169: --code-mode-host %s)\n", b.URL, b.URL)
		}
	}
	for _, b := range bound {
		if b.Listen.Transport == hostprogram.GRPC {
			fmt.Fprintf(w, "\n  playground: %s/   (open it in a browser: write a cell, run it with tools defined in the page)\n", b.URL)
		}
	}
	fmt.Fprintln(w)
	if tools == "" {
		fmt.Fprintln(w, "  tools: none of the host's own; each client brings its tools.")
	} else {
		fmt.Fprintf(w, "  tools: %s, offered to every cell beside the client's.\n", tools)
	}
	if len(cfg.AllowOrigins) > 0 {
		fmt.Fprintf(w, "  browsers: Connect from %s.\n", strings.Join(cfg.AllowOrigins, ", "))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Stop with Ctrl-C: running cells are terminated and sessions closed (a second Ctrl-C exits at once).")
}
