package main

import (
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/codemodehq/codemode/pkg/hostprogram"
)

// When `codemode codex install` finds no codemode-host beside the running codemode, it copies
// codemode itself into Codex's folder as codex-code-mode-host. Run under that name, codemode is
// the host: exactly `codemode host` (the program of services/codemode-host), with Codex's
// command line as its arguments. This runs in an init function so that it happens before any
// other part of the CLI, whatever main does.
func init() {
	if runsAsCodexHost(os.Args[0]) {
		os.Exit(runAsHost("codemode-host", os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// runsAsCodexHost reports whether argv0 is the name Codex spawns its host by.
func runsAsCodexHost(argv0 string) bool {
	name := filepath.Base(argv0)
	name = strings.TrimSuffix(strings.ToLower(name), ".exe")
	return name == "codex-code-mode-host"
}

// runAsHost runs the host program under name, as codemode-host's main does.
func runAsHost(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	return hostprogram.Main(name, args, streams(stdin, stdout, stderr), os.Getenv, signals)
}
