package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/hostv1"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

func init() {
	register("host", command{summary: "host --listen stdio|ws://IP:PORT: serve Protocol V1 to Codex (a minimal host; issue 12 builds the service)", run: hostCommand})
}

// hostCommand serves the in-process runtime over V1, as Codex's code-mode host does: on stdio
// (Codex spawns it) or on a WebSocket listener (Codex connects with --code-mode-host ws://…),
// whose address it prints on stdout. Logs go to stderr, never stdout.
func hostCommand(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("codemode host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "stdio", "stdio, stdio:// or ws://IP:PORT")
	generation := fs.String("generation", hostv1.DefaultGeneration.String(), "V1 wire generation to serve: baseline (Codex ≤ 0.151) or host-duration (Codex ≥ 0.152)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	url, err := hostv1.ParseListenURL(*listen)
	if err != nil {
		fmt.Fprintln(stderr, "codemode host:", err)
		return 2
	}
	gen, err := wirev1.ParseGeneration(*generation)
	if err != nil {
		fmt.Fprintln(stderr, "codemode host:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serveHost(ctx, url, gen, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "codemode host:", err)
		return 1
	}
	return 0
}

func serveHost(ctx context.Context, url hostv1.ListenURL, gen wirev1.Generation, stdout, stderr io.Writer) error {
	provider, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		return err
	}
	defer provider.Close()
	host := hostv1.New(provider, hostv1.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))), hostv1.WithGeneration(gen))
	if url.Stdio() {
		return host.ServeStdio(ctx, os.Stdin, os.Stdout)
	}
	ln, err := net.Listen("tcp", url.WebSocket.String())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ws://%s\n", ln.Addr())
	return host.ServeWebSocket(ctx, ln)
}
