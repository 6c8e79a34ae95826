package exectools

import (
	"context"
	"encoding/base64"
	"strconv"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
)

// Process is a process started on the exec-server with Start: its stdin when piped, its
// retained output through Read, and its end.
type Process struct {
	c  *Client
	id string
	r  *run
}

// StartOptions describe a process for Start.
type StartOptions struct {
	Argv []string
	// Cwd is a native absolute path; "" is the server's working directory.
	Cwd string
	// Stdin pipes the process's standard input for Write; without it stdin is closed.
	Stdin bool
	// Env replaces the inherited environment when non-nil (process/start's env, no envPolicy).
	Env map[string]string
}

// Start starts a process; Wait or Terminate ends the caller's interest in it.
func (c *Client) Start(ctx context.Context, o StartOptions) (*Process, error) {
	cwd, err := c.cwdURI(ctx, o.Cwd)
	if err != nil {
		return nil, err
	}
	id := "codemode-" + strconv.FormatInt(c.next.Add(1), 10)
	p := &Process{c: c, id: id, r: &run{closed: make(chan struct{})}}
	c.mu.Lock()
	c.procs[id] = p.r
	c.mu.Unlock()
	params := wire.ExecParams{ProcessId: id, Argv: o.Argv, Cwd: cwd, Env: o.Env, PipeStdin: o.Stdin}
	if o.Env == nil {
		params.Env = map[string]string{}
		params.EnvPolicy = &wire.ExecEnvPolicy{Inherit: "all", Exclude: []string{}, Set: map[string]string{}, IncludeOnly: []string{}}
	}
	if _, err := call(ctx, c, "process/start", execrpc.Raw(params), wire.DecodeExecResponse); err != nil {
		if ctx.Err() != nil {
			// ctx ended while the request was out: the server may have started the process
			// already (it handles start and terminate in order), and nobody would stop it.
			c.terminate(id)
		}
		p.forget()
		return nil, err
	}
	return p, nil
}

// cwdURI is cwd as a URI, or the server's working directory (environment/info) for "".
func (c *Client) cwdURI(ctx context.Context, cwd string) (wire.PathUri, error) {
	if cwd != "" {
		return pathURI(cwd), nil
	}
	info, err := call(ctx, c, "environment/info", nil, wire.DecodeEnvironmentInfo)
	if err != nil {
		return "", err
	}
	if info.Cwd == nil {
		return "file:///", nil
	}
	return *info.Cwd, nil
}

// ID is the process's protocol id.
func (p *Process) ID() string { return p.id }

// Write sends data to the process's stdin and returns the server's status ("accepted",
// "stdinClosed", "unknownProcess" or "starting").
func (p *Process) Write(ctx context.Context, data []byte) (string, error) {
	id := "w" + strconv.FormatInt(p.c.next.Add(1), 10)
	r, err := call(ctx, p.c, "process/write", execrpc.Raw(wire.WriteParams{ProcessId: p.id, Chunk: base64.StdEncoding.EncodeToString(data), WriteId: id}), wire.DecodeWriteResponse)
	return r.Status, err
}

// Read returns the retained output after seq afterSeq, waiting up to waitMs on the server for
// some to arrive (0: answer at once).
func (p *Process) Read(ctx context.Context, afterSeq, waitMs uint64) (wire.ReadResponse, error) {
	return call(ctx, p.c, "process/read", execrpc.Raw(wire.ReadParams{ProcessId: p.id, AfterSeq: &afterSeq, WaitMs: &waitMs}), wire.DecodeReadResponse)
}

// Interrupt sends SIGINT to the process's group (process/signal "interrupt").
func (p *Process) Interrupt(ctx context.Context) error {
	_, err := call(ctx, p.c, "process/signal", execrpc.Raw(wire.SignalParams{ProcessId: p.id, Signal: "interrupt"}), wire.DecodeEmptyResponse)
	return err
}

// Terminate kills the process and reports whether it was still running.
func (p *Process) Terminate(ctx context.Context) (bool, error) {
	r, err := call(ctx, p.c, "process/terminate", execrpc.Raw(wire.TerminateParams{ProcessId: p.id}), wire.DecodeTerminateResponse)
	return r.Running, err
}

// Wait waits for process/closed and returns what the notifications carried. If ctx ends first
// the process is terminated and ctx's error returned.
func (p *Process) Wait(ctx context.Context) (Result, error) {
	defer p.forget()
	select {
	case <-p.r.closed:
		p.c.mu.Lock()
		defer p.c.mu.Unlock()
		return Result{Stdout: string(p.r.stdout), Stderr: string(p.r.stderr), ExitCode: p.r.exitCode}, nil
	case <-ctx.Done():
		p.c.terminate(p.id)
		return Result{}, ctx.Err()
	}
}

func (p *Process) forget() {
	p.c.mu.Lock()
	delete(p.c.procs, p.id)
	p.c.mu.Unlock()
}
