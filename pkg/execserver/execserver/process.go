package execserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
	"github.com/codemodehq/codemode/pkg/internal/broadcast"
	"github.com/codemodehq/codemode/pkg/internal/procgroup"
)

// maxWaitMs caps process/read's waitMs where a Duration would overflow (about 31 years).
const maxWaitMs = 1 << 40

// maxRetainedBytes bounds the output a process keeps for process/read; older chunks are dropped.
const maxRetainedBytes = 8 << 20

// process is one started process: its output chunks in seq order, its state, and what waits for
// either to change.
type process struct {
	id    string
	cmd   *exec.Cmd
	group *procgroup.Group // kills the process with everything it started
	stdin *os.File         // nil unless pipeStdin

	mu       sync.Mutex
	seq      uint64 // the last seq given out
	chunks   []wire.ProcessOutputChunk
	retained int
	exited   bool
	exitCode int32
	closed   bool
	changed  broadcast.Signal // wakes process/read waiters on every change
	done     chan struct{}    // closed once closed is set
}

// event is what the output readers and the waiter report to the process's one sequencer, which
// numbers and publishes them in order.
type event struct {
	stream  *stream
	data    []byte
	eof     bool
	drained bool // the stream's reader found its pipe empty after the exit (see stream)
	exit    *int32
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
		return nil, invalidRequest("process %s already exists", p.ProcessId)
	}
	proc := &process{id: p.ProcessId, done: make(chan struct{})}
	s.procs[p.ProcessId] = proc
	s.mu.Unlock()
	fail := func(err error) (wire.Message, error) {
		s.mu.Lock()
		delete(s.procs, p.ProcessId)
		s.mu.Unlock()
		return nil, spawnError(err)
	}

	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	if p.Arg0 != nil {
		cmd.Args[0] = *p.Arg0
	}
	cmd.Dir = cwd
	cmd.Env = environment(p)
	proc.group = procgroup.New(cmd)
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
	err = proc.group.Start()
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
	streams := [2]*stream{{f: outR, name: "stdout"}, {f: errR, name: "stderr"}}
	go func() { defer s.wg.Done(); streams[0].read(events) }()
	go func() { defer s.wg.Done(); streams[1].read(events) }()
	go func() {
		defer s.wg.Done()
		code := exitCode(cmd.Wait())
		events <- event{exit: &code}
	}()
	go func() { defer s.wg.Done(); s.sequence(proc, streams, events) }()
	return wire.ExecResponse{ProcessId: p.ProcessId, SandboxType: ptr("none")}, nil
}

func ptr[T any](v T) *T { return &v }

// spawnError is Codex's answer to a process that could not start: CodeInternalError, the io
// error's text and its kind in data (spawnNotFound, spawnPermissionDenied or spawnFailed).
func spawnError(err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		err = syscall.ENOENT
	}
	kind := "spawnFailed"
	switch {
	case errors.Is(err, syscall.ENOENT):
		kind = "spawnNotFound"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		kind = "spawnPermissionDenied"
	}
	return &execrpc.Error{Code: execrpc.CodeInternalError, Message: ioText(err), Data: json.RawMessage(`{"kind":"` + kind + `"}`)}
}

// stream is one output pipe of a process and its reader. When the process exits the sequencer
// asks each reader to drain: output the process wrote before it exited is already in the pipe,
// so the reader reads until the pipe holds nothing (FIONREAD) and then reports drained. The exit
// is numbered after that, so it follows all of the process's own output and a client that stops
// reading at the exit has all of it — without waiting for the end of the pipe, which a background
// child may hold open for ever.
type stream struct {
	f     *os.File
	name  string
	drain atomic.Bool
}

// requestDrain asks the reader to drain; the past deadline wakes a Read that is blocked.
func (st *stream) requestDrain() {
	st.drain.Store(true)
	_ = st.f.SetReadDeadline(time.Unix(1, 0))
}

// empty reports whether the pipe holds no unread byte (unknown counts as empty).
func (st *stream) empty() bool {
	n := 0
	raw, err := st.f.SyscallConn()
	if err == nil {
		_ = raw.Control(func(fd uintptr) { n = pendingBytes(fd) })
	}
	return n <= 0
}

func (st *stream) read(events chan<- event) {
	defer st.f.Close()
	buf := make([]byte, 32<<10)
	drained := false
	for {
		if !drained && st.drain.Load() {
			_ = st.f.SetReadDeadline(time.Time{})
			if st.empty() {
				drained = true
				events <- event{stream: st, drained: true}
				continue
			}
		}
		n, err := st.f.Read(buf)
		if n > 0 {
			events <- event{stream: st, data: append([]byte(nil), buf[:n]...)}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The drain request's wake-up (or a late one after the drain): read on.
			_ = st.f.SetReadDeadline(time.Time{})
			continue
		}
		if err != nil {
			events <- event{stream: st, eof: true}
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
// process/exited once the streams are drained (see stream), then, once both streams ended too,
// process/closed.
func (s *session) sequence(p *process, streams [2]*stream, events <-chan event) {
	settled := map[*stream]bool{} // ended or drained after the exit
	ended := 0
	var exit *int32
	published := false
	for ended < 2 || !published {
		ev := <-events
		switch {
		case ev.eof:
			ended++
			settled[ev.stream] = true
		case ev.drained:
			settled[ev.stream] = true
		case ev.exit != nil:
			exit = ev.exit
			for _, st := range streams {
				st.requestDrain()
			}
		default:
			s.publishOutput(p, ev)
		}
		if exit != nil && !published && len(settled) == 2 {
			published = true
			s.publishExit(p, *exit)
		}
	}
	p.mu.Lock()
	p.seq++
	seq := p.seq
	p.closed = true
	if p.stdin != nil {
		p.stdin.Close()
	}
	p.changed.Broadcast()
	close(p.done)
	p.mu.Unlock()
	s.notify("process/closed", wire.ExecClosedNotification{ProcessId: p.id, Seq: seq})
}

func (s *session) publishExit(p *process, code int32) {
	p.mu.Lock()
	p.seq++
	seq := p.seq
	p.exited, p.exitCode = true, code
	p.changed.Broadcast()
	p.mu.Unlock()
	s.notify("process/exited", wire.ExecExitedNotification{ProcessId: p.id, Seq: seq, ExitCode: code, SandboxDenied: ptr(false)})
}

// publishOutput numbers a chunk, retains it for process/read (dropping the oldest past
// maxRetainedBytes) and sends process/output.
func (s *session) publishOutput(p *process, ev event) {
	p.mu.Lock()
	p.seq++
	chunk := wire.ProcessOutputChunk{Seq: p.seq, Stream: ev.stream.name, Chunk: base64.StdEncoding.EncodeToString(ev.data)}
	p.chunks = append(p.chunks, chunk)
	p.retained += len(ev.data)
	for p.retained > maxRetainedBytes && len(p.chunks) > 1 {
		p.retained -= base64.StdEncoding.DecodedLen(len(p.chunks[0].Chunk))
		p.chunks = p.chunks[1:]
	}
	p.changed.Broadcast()
	p.mu.Unlock()
	s.notify("process/output", wire.ExecOutputDeltaNotification{ProcessId: p.id, Seq: chunk.Seq, Stream: chunk.Stream, Chunk: chunk.Chunk})
}

func (s *session) lookup(id string) *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.procs[id]
}

func unknownProcess(id string) error {
	return invalidRequest("unknown process id %s", id)
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
		timer := time.NewTimer(time.Duration(min(*r.WaitMs, maxWaitMs)) * time.Millisecond)
		defer timer.Stop()
		deadline = timer.C
	}
	for {
		p.mu.Lock()
		resp := p.readAfter(after, r.MaxBytes)
		changed := p.changed.Changed()
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

// readAfter is what process/read returns now (p.mu held): the retained chunks after seq after,
// at least one even past maxBytes, and nextSeq, which a client's next read passes back as
// afterSeq+1: one past the last chunk when maxBytes was reached, so the next read starts at the
// first chunk left out, else one past the last event (output, exit or close) numbered, so the
// next read returns only what is new (docs/exec-server.md).
func (p *process) readAfter(after uint64, maxBytes *uint64) wire.ReadResponse {
	resp := wire.ReadResponse{NextSeq: p.seq + 1, Exited: p.exited, Closed: p.closed, Chunks: []wire.ProcessOutputChunk{}}
	if p.exited {
		resp.ExitCode = ptr(p.exitCode)
	}
	budget := uint64(math.MaxUint64)
	if maxBytes != nil {
		budget = *maxBytes
	}
	var taken uint64
	for _, c := range p.chunks {
		if c.Seq <= after {
			continue
		}
		size := uint64(base64.StdEncoding.DecodedLen(len(c.Chunk)))
		if len(resp.Chunks) > 0 && taken+size > budget {
			break
		}
		resp.Chunks = append(resp.Chunks, c)
		taken += size
	}
	if n := len(resp.Chunks); n > 0 && taken >= budget {
		resp.NextSeq = resp.Chunks[n-1].Seq + 1
	}
	return resp
}

func (s *session) writeProcess(w wire.WriteParams) (wire.Message, error) {
	data, err := decodeBase64(w.Chunk)
	if err != nil {
		return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "%v", err)
	}
	p := s.lookup(w.ProcessId)
	if p == nil {
		return wire.WriteResponse{Status: "unknownProcess"}, nil
	}
	p.mu.Lock()
	stdin := p.stdin
	p.mu.Unlock()
	if stdin == nil {
		return wire.WriteResponse{Status: "stdinClosed"}, nil
	}
	// A piped stdin that no longer takes bytes (the process ended, or closed it) is an error in
	// Codex, not a status.
	if _, err := stdin.Write(data); err != nil {
		return nil, execrpc.Errorf(execrpc.CodeInternalError, "failed to write to process stdin")
	}
	return wire.WriteResponse{Status: "accepted"}, nil
}

func (s *session) signalProcess(sp wire.SignalParams) (wire.Message, error) {
	p := s.lookup(sp.ProcessId)
	if p == nil {
		return wire.EmptyResponse{}, nil // nothing to interrupt: what the signal asks for holds
	}
	p.mu.Lock()
	running := !p.exited
	p.mu.Unlock()
	if running {
		_ = p.group.Interrupt()
	}
	return wire.EmptyResponse{}, nil
}

// terminateProcess kills the process's whole group (SIGKILL: a process that ignores SIGINT or
// SIGTERM still ends) and reports whether it was running.
func (s *session) terminateProcess(t wire.TerminateParams) (wire.Message, error) {
	p := s.lookup(t.ProcessId)
	if p == nil {
		return wire.TerminateResponse{Running: false}, nil // nothing runs under that id: an answer, not an error
	}
	p.mu.Lock()
	running := !p.exited
	p.mu.Unlock()
	_ = p.group.Kill()
	return wire.TerminateResponse{Running: running}, nil
}

// killAll kills every process group of the session (the connection ended).
func (s *session) killAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		_ = p.group.Kill()
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
