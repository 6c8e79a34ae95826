package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/codemodehq/codemode/pkg/execserver/execserver"
	"github.com/codemodehq/codemode/pkg/v1/v1host"
)

func init() {
	register("exec-server", command{summary: "exec-server --listen stdio|ws://IP:PORT [--root DIR]: serve Codex's exec-server protocol", run: execServerCommand})
}

var execServerCmd = flagCommand{
	name:     "codemode exec-server",
	synopsis: "codemode exec-server [--listen stdio|ws://IP:PORT] [--root DIR]",
	help: `usage: codemode exec-server [flags]

Serves Codex's exec-server protocol (JSON-RPC without the "jsonrpc" member): initialize,
environment/info and environment/status, process/start|read|write|signal|terminate (real
processes, each in its own process group, killed when the connection ends) and the fs/* methods
on file:// URIs. It does not sandbox: process/start reports sandboxType "none", every capability
of environment/info is false, and managed networking is refused. Each connection is a session.

Flags:
  --listen stdio|ws://IP:PORT
        stdio (the default): newline-delimited JSON on stdin and stdout, until stdin ends.
        ws://IP:PORT: a WebSocket listener on a loopback address (port 0 picks a free one); the
        bound address is printed as ws://ADDR on stdout. Requests with an Origin header are
        refused (403), and so are requests whose Host is not localhost or a loopback address;
        GET /readyz answers 200. Other addresses are refused: the protocol runs commands.
          codemode exec-server --listen ws://127.0.0.1:0
  --token TOKEN
        require "Authorization: Bearer TOKEN" on every WebSocket connection (others get 401;
        /readyz stays open), so that other users and programs of this machine cannot run
        commands through it. Prefer $CODEMODE_EXEC_SERVER_TOKEN, read when --token is not given.
        A manifest reaches such a server with "exec_server": {"url": …, "token_env": NAME}.
          codemode exec-server --listen ws://127.0.0.1:8770 --token "$(openssl rand -hex 32)"
  --root DIR
        confine the fs/* methods and process working directories to DIR (symlinks resolved);
        a path outside is refused with "access denied: PATH is outside the exec-server root DIR".
        The processes themselves are not confined.
          codemode exec-server --root ./workspace
  -h, --help
        print this help.

Exit status: 0 the input ended or Ctrl-C/SIGTERM stopped it; 1 the server failed (a port in use);
2 wrong invocation (an unknown listen URL, a missing root).

Examples:
  codemode exec-server --listen stdio --root .
  codemode exec-server --listen ws://127.0.0.1:8770
`,
}

// execServerTokenEnv holds the exec-server's token when --token is not given (an argument is
// visible to every user of the machine in the process list; the environment is not).
const execServerTokenEnv = "CODEMODE_EXEC_SERVER_TOKEN"

func execServerCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(execServerCmd.name, flag.ContinueOnError)
	listen := fs.String("listen", "stdio", "")
	root := fs.String("root", "", "")
	token := fs.String("token", "", "")
	if done, status := execServerCmd.parse(fs, args, stdout, stderr); done {
		return status
	}
	if fs.NArg() > 0 {
		return execServerCmd.wrong(stderr, fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	u, err := v1host.ParseListenURL(*listen)
	if err != nil {
		return execServerCmd.wrong(stderr, err.Error())
	}
	if !u.Stdio() && !u.WebSocket.Addr().IsLoopback() {
		return execServerCmd.wrong(stderr, fmt.Sprintf("refusing to listen on %s: only loopback addresses (the protocol runs commands as this user)", u.WebSocket))
	}
	if *token == "" {
		*token = os.Getenv(execServerTokenEnv)
	}
	if *token != "" && u.Stdio() {
		return execServerCmd.wrong(stderr, "--token needs --listen ws://…: on stdio the parent process is the only client")
	}
	srv, err := execserver.New(execserver.Options{Root: *root, Token: *token, Logf: func(format string, a ...any) {
		fmt.Fprintf(stderr, "codemode exec-server: "+format+"\n", a...)
	}})
	if err != nil {
		return execServerCmd.wrong(stderr, err.Error())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if u.Stdio() {
		in, ok := stdin.(io.ReadCloser)
		if !ok {
			in = io.NopCloser(stdin)
		}
		if err := srv.ServeStdio(ctx, in, stdout); err != nil && !errors.Is(err, os.ErrClosed) {
			fmt.Fprintf(stderr, "codemode exec-server: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	ln, err := net.Listen("tcp", u.WebSocket.String())
	if err != nil {
		fmt.Fprintf(stderr, "codemode exec-server: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "ws://%s\n", ln.Addr())
	if err := srv.ServeWebSocket(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "codemode exec-server: %v\n", err)
		return exitFailed
	}
	return exitOK
}
