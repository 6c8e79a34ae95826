package execserver

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execrpc"
)

// maxRetainedBytes bounds the output a process keeps for process/read; older chunks are dropped.
const maxRetainedBytes = 8 << 20

// process is one started process: its output chunks in seq order, its state, and what waits for
// either to change.
type process struct {
	id    string
	cmd   *exec.Cmd
	stdin *os.File // nil unless pipeStdin

	mu       sync.Mutex
	seq      uint64 // the last seq given out
	chunks   []wire.ProcessOutputChunk
	retained int
	exited   bool
	exitCode int32
	closed   bool
	stdinErr bool
	changed  chan struct{} // closed and replaced on every change
	done     chan struct{} // closed once closed is set
}

// event is what the output readers and the waiter report to the process's one sequencer, which
// numbers and publishes them in order.
type event struct {
	stream string
	data   []byte
	eof    bool
	exit   *int32
}

// startProcess launches p's argv in its own process group. notify publishes a notification.
func (s *session) startProcess(p wire.ExecParams) (wire.Message, error) {
	if len(p.Argv) == 0 {
		return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "argv must not be empty")
	}
	if p.Tty {
		return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "tty processes are not supported by this exec-server")
	}
	if p.EnforceManagedNetwork {
		// Fail closed: this exec-server cannot enforce managed networking.
		return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "managed network enforcement is not supported by this exec-server")
	}
	cwd, err := s.srv.confine(p.Cwd)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if _, dup := s.procs[p.ProcessId]; dup {
		s.mu.Unlock()
		return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "process id `%s` is already in use", p.ProcessId)
	}
	proc := &process{id: p.ProcessId, changed: make(chan struct{}), done: make(chan struct{})}
	s.procs[p.ProcessId] = proc
	s.mu.Unlock()
	fail := func(err error) (wire.Message, error) {
		s.mu.Lock()
		delete(s.procs, p.ProcessId)
		s.mu.Unlock()
		return nil, execrpc.Errorf(execrpc.CodeInternalError, "failed to start %s: %v", p.Argv[0], err)
	}

	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	if p.Arg0 != nil {
		cmd.Args[0] = *p.Arg0
	}
	cmd.Dir = cwd
	cmd.Env = environment(p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fail(err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	var inR *os.File
	if p.PipeStdin {
		if inR, proc.stdin, err = os.Pipe(); err != nil {
			return fail(err)
		}
		cmd.Stdin = inR
	}
	proc.cmd = cmd
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		outR.Close()
		errR.Close()
		if proc.stdin != nil {
			proc.stdin.Close()
		}
		return fail(err)
	}
	events := make(chan event)
	s.wg.Add(4)
	go func() { defer s.wg.Done(); readStream(outR, "stdout", events) }()
	go func() { defer s.wg.Done(); readStream(errR, "stderr", events) }()
	go func() {
		defer s.wg.Done()
		code := exitCode(cmd.Wait())
		events <- event{exit: &code}
	}()
	go func() { defer s.wg.Done(); s.sequence(proc, events) }()
	return wire.ExecResponse{ProcessId: p.ProcessId, SandboxType: ptr("none")}, nil
}

func ptr[T any](v T) *T { return &v }

func readStream(f *os.File, stream string, events chan<- event) {
	defer f.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			events <- event{stream: stream, data: append([]byte(nil), buf[:n]...)}
		}
		if err != nil {
			events <- event{stream: stream, eof: true}
			return
		}
	}
}

// exitCode is the process's exit status, or 128+N after signal N (as a shell reports it).
func exitCode(err error) int32 {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int32(ws.Signal())
		}
		return int32(ee.ExitCode())
	}
	return -1
}

// sequence numbers the process's events and publishes them in order: output chunks, then
// process/exited, then, once both streams ended too, process/closed.
func (s *session) sequence(p *process, events <-chan event) {
	eofs := 0
	exited := false
	for eofs < 2 || !exited {
		ev := <-events
		switch {
		case ev.eof:
			eofs++
			continue
		case ev.exit != nil:
			exited = true
			p.mu.Lock()
			p.seq++
			seq := p.seq
			p.exited, p.exitCode = true, *ev.exit
			p.signal()
			p.mu.Unlock()
			s.notify("process/exited", wire.ExecExitedNotification{ProcessId: p.id, Seq: seq, ExitCode: *ev.exit, SandboxDenied: ptr(false)})
		default:
			p.mu.Lock()
			p.seq++
			chunk := wire.ProcessOutputChunk{Seq: p.seq, Stream: ev.stream, Chunk: base64.StdEncoding.EncodeToString(ev.data)}
			p.chunks = append(p.chunks, chunk)
			p.retained += len(ev.data)
			for p.retained > maxRetainedBytes && len(p.chunks) > 1 {
				old, _ := base64.StdEncoding.DecodeString(p.chunks[0].Chunk)
				p.retained -= len(old)
				p.chunks = p.chunks[1:]
			}
			p.signal()
			p.mu.Unlock()
			s.notify("process/output", wire.ExecOutputDeltaNotification{ProcessId: p.id, Seq: chunk.Seq, Stream: chunk.Stream, Chunk: chunk.Chunk})
		}
	}
	p.mu.Lock()
	p.seq++
	seq := p.seq
	p.closed = true
	if p.stdin != nil {
		p.stdin.Close()
	}
	p.signal()
	close(p.done)
	p.mu.Unlock()
	s.notify("process/closed", wire.ExecClosedNotification{ProcessId: p.id, Seq: seq})
}

// signal wakes process/read waiters; p.mu is held.
func (p *process) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (s *session) lookup(id string) *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.procs[id]
}

func unknownProcess(id string) error {
	return execrpc.Errorf(execrpc.CodeInvalidParams, "unknown process id `%s`", id)
}

func (s *session) readProcess(ctx context.Context, r wire.ReadParams) (wire.Message, error) {
	p := s.lookup(r.ProcessId)
	if p == nil {
		return nil, unknownProcess(r.ProcessId)
	}
	var after uint64
	if r.AfterSeq != nil {
		after = *r.AfterSeq
	}
	var deadline <-chan time.Time
	if r.WaitMs != nil && *r.WaitMs > 0 {
		timer := time.NewTimer(time.Duration(*r.WaitMs) * time.Millisecond)
		defer timer.Stop()
		deadline = timer.C
	}
	for {
		p.mu.Lock()
		resp := wire.ReadResponse{NextSeq: after + 1, Exited: p.exited, Closed: p.closed}
		if p.exited {
			resp.ExitCode = ptr(p.exitCode)
		}
		budget := -1
		if r.MaxBytes != nil {
			budget = int(min(*r.MaxBytes, 1<<30))
		}
		for _, c := range p.chunks {
			if c.Seq <= after {
				continue
			}
			size := base64.StdEncoding.DecodedLen(len(c.Chunk))
			if budget >= 0 && len(resp.Chunks) > 0 && size > budget {
				break
			}
			resp.Chunks = append(resp.Chunks, c)
			resp.NextSeq = c.Seq + 1
			if budget >= 0 {
				budget -= size
			}
		}
		if resp.Chunks == nil {
			resp.Chunks = []wire.ProcessOutputChunk{}
		}
		changed := p.changed
		p.mu.Unlock()
		if len(resp.Chunks) > 0 || resp.Closed || deadline == nil {
			return resp, nil
		}
		select {
		case <-changed:
		case <-deadline:
			deadline = nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (s *session) writeProcess(w wire.WriteParams) (wire.Message, error) {
	p := s.lookup(w.ProcessId)
	if p == nil {
		return wire.WriteResponse{Status: "unknownProcess"}, nil
	}
	data, err := base64.StdEncoding.DecodeString(w.Chunk)
	if err != nil {
		return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "chunk: %v", err)
	}
	p.mu.Lock()
	stdin, closed := p.stdin, p.closed || p.stdinErr
	p.mu.Unlock()
	if stdin == nil || closed {
		return wire.WriteResponse{Status: "stdinClosed"}, nil
	}
	if _, err := stdin.Write(data); err != nil {
		p.mu.Lock()
		p.stdinErr = true
		p.mu.Unlock()
		return wire.WriteResponse{Status: "stdinClosed"}, nil
	}
	return wire.WriteResponse{Status: "accepted"}, nil
}

func (s *session) signalProcess(sp wire.SignalParams) (wire.Message, error) {
	p := s.lookup(sp.ProcessId)
	if p == nil {
		return nil, unknownProcess(sp.ProcessId)
	}
	p.mu.Lock()
	running := !p.exited
	p.mu.Unlock()
	if running {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT)
	}
	return wire.EmptyResponse{}, nil
}

// terminateProcess kills the process's whole group (SIGKILL: a process that ignores SIGINT or
// SIGTERM still ends) and reports whether it was running.
func (s *session) terminateProcess(t wire.TerminateParams) (wire.Message, error) {
	p := s.lookup(t.ProcessId)
	if p == nil {
		return nil, unknownProcess(t.ProcessId)
	}
	p.mu.Lock()
	running := !p.exited
	p.mu.Unlock()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	return wire.TerminateResponse{Running: running}, nil
}

// killAll kills every process group of the session (the connection ended).
func (s *session) killAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// coreVars are what envPolicy inherit "core" keeps of the exec-server's environment.
var coreVars = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "LANG"}

// environment is the process environment: with an envPolicy, derived from the exec-server's own
// (inherit all|core|none, default excludes of secrets unless ignored, exclude, set, includeOnly),
// then env on top; without one, exactly env.
func environment(p wire.ExecParams) []string {
	vars := map[string]string{}
	if pol := p.EnvPolicy; pol != nil {
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			switch pol.Inherit {
			case "all":
				vars[k] = v
			case "core":
				for _, c := range coreVars {
					if c == k {
						vars[k] = v
					}
				}
			}
		}
		excludes := pol.Exclude
		if !pol.IgnoreDefaultExcludes {
			excludes = append([]string{"*KEY*", "*SECRET*", "*TOKEN*"}, excludes...)
		}
		for k := range vars {
			if matchAny(excludes, k) {
				delete(vars, k)
			}
		}
		for k, v := range pol.Set {
			vars[k] = v
		}
		if len(pol.IncludeOnly) > 0 {
			for k := range vars {
				if !matchAny(pol.IncludeOnly, k) {
					delete(vars, k)
				}
			}
		}
	}
	for k, v := range p.Env {
		vars[k] = v
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

func matchAny(patterns []string, name string) bool {
	for _, pat := range patterns {
		if ok, _ := path.Match(strings.ToUpper(pat), strings.ToUpper(name)); ok {
			return true
		}
	}
	return false
}
