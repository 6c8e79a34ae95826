// Command tshost serves codex.code_mode.v1.CodeModeHost (pkg/grpchost on the in-process QuickJS
// runtime) for the TypeScript SDK's integration tests (pkg/tssdk/test), until the host program
// lands. It listens on -listen (default 127.0.0.1:0: a free port), prints "http://ADDR" on
// stdout once it accepts connections, and runs until its stdin reaches EOF or it receives
// SIGTERM or SIGINT, then shuts its sessions down and exits 0. Logs go to stderr.
//
// A test restarts the host by ending one process and starting the next with -listen set to the
// address the first one printed.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/codemodehq/codemode/pkg/grpchost"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on")
	flag.Parse()
	if err := run(*listen); err != nil {
		fmt.Fprintln(os.Stderr, "tshost:", err)
		os.Exit(1)
	}
}

func run(listen string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// The parent ends the host by closing stdin (or by dying, which closes it too).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()

	provider, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		return err
	}
	defer provider.Close()
	host := grpchost.New(provider, grpchost.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	ln, err := grpchost.Listen(ctx, listen)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	return host.Serve(ctx, ln)
}
