// Command codemode-host is codemode's Codex-compatible code-mode host: the in-process QuickJS
// runtime served over Protocol V1 (stdio, WebSocket) and gRPC/Connect, with Codex's command line
// (--listen stdio|grpc+stdio://|ws://IP:PORT|grpc://IP:PORT, repeatable) and codemode's own flags (session
// caps, warm pool, tool manifest, token, CORS, drain bound, logging). `codemode-host --help`
// explains every flag, `codemode-host --version` names the build (docs/install.md);
// pkg/hostprogram is the program.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/codemodehq/codemode/pkg/hostprogram"
)

func main() {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	streams := hostprogram.Streams{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(hostprogram.Main("codemode-host", os.Args[1:], streams, os.Getenv, signals))
}
