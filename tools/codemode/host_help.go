package main

// The help of `codemode host` (host.go), printed by dispatch for any --help among its arguments:
// the flag package's own usage goes to stderr with exit status 2 and prints defaults twice.
func init() {
	helps["host"] = `usage: codemode host [--listen stdio|ws://IP:PORT] [--generation NAME]

Serves the in-process runtime to Codex over Protocol V1, as Codex's code-mode host does: on its
standard streams (Codex spawns it) or on a WebSocket listener (Codex connects with
--code-mode-host ws://…), whose address it prints on stdout. Logs go to stderr, never stdout.
It runs until stdin closes (stdio) or it receives Ctrl-C or SIGTERM.

Flags:
  --listen stdio|ws://IP:PORT
        where to serve: stdio (also stdio://, the default) or a WebSocket on an IP address and
        port (port 0 picks a free one, printed on stdout).
          codemode host --listen ws://127.0.0.1:0
  --generation NAME
        the V1 wire generation to serve: host-duration (Codex ≥ 0.152, the default) or
        baseline (Codex ≤ 0.151).
          codemode host --generation baseline
  -h, --help
        print this help.

Exit status: 0 served until told to stop; 1 the host failed; 2 wrong invocation.

Examples:
  codemode host
  codemode host --listen ws://127.0.0.1:8765 --generation baseline
`
}
