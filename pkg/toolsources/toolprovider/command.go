package toolprovider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/codemodehq/codemode/pkg/internal/procgroup"
)

// Why a call failed although its command did not fail by itself. The errors a Provider returns
// wrap them, so callers can tell them apart with errors.Is.
var (
	// ErrTimedOut: the command ran past its tool's timeout and was killed with its process group.
	ErrTimedOut = errors.New("timed out")
	// ErrOutputTooLarge: the command printed more than its tool's max_output_bytes on stdout and
	// was killed with its process group.
	ErrOutputTooLarge = errors.New("printed too much on stdout")
)

const (
	// maxStderrBytes bounds the stderr text a failed call reports: its first and last halves are
	// kept, since a program often says what went wrong first (Go's panic) or last (a traceback).
	maxStderrBytes = 4096
	// waitDelay bounds how long a finished (or killed) command's pipes may stay open: a process
	// that left the group (setsid) and kept stdout open must not hold the call forever.
	waitDelay = 2 * time.Second
)

// command is how a tool runs: a program and its arguments, its working directory, its whole
// environment and its limits.
type command struct {
	path           string
	args           []string
	dir            string
	env            []string
	timeout        time.Duration
	maxOutputBytes int
}

// run starts the command with input on its stdin and returns what it printed on stdout once it
// exited with status 0. The command's process group is killed if ctx ends first, if the timeout
// (counted from here) expires, or if stdout outgrows the limit; the error then says which.
func (c command) run(ctx context.Context, input []byte) ([]byte, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx, stop := context.WithTimeoutCause(ctx, c.timeout, ErrTimedOut)
	defer stop()

	stdout := &limitedBuffer{limit: c.maxOutputBytes, exceeded: func() { cancel(ErrOutputTooLarge) }}
	stderr := &boundedBuffer{limit: maxStderrBytes}
	cmd := exec.CommandContext(ctx, c.path, c.args...)
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	// The command leads a group of its own, and its cancellation kills the whole group, so that
	// what it started (a shell's children, the program `go run` builds) dies with it instead of
	// living on unobserved.
	group := procgroup.New(cmd)
	cmd.Cancel = group.Kill
	err := group.Start()
	if err == nil {
		err = cmd.Wait()
	}
	if err = c.failure(ctx, err, stderr.String()); err != nil {
		return nil, err
	}
	return stdout.buf.Bytes(), nil
}

// failure explains why a command that returned err did not succeed, or returns nil if it did.
// A command that exited with status 0 succeeded even if its timeout expired on the way out.
func (c command) failure(ctx context.Context, err error, stderr string) error {
	if err == nil || errors.Is(err, exec.ErrWaitDelay) {
		// ErrWaitDelay after status 0: a process outside the group held the pipes; what the
		// command printed before it exited is its result.
		return nil
	}
	if ctx.Err() != nil {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, ErrTimedOut):
			return withStderr(fmt.Errorf("%w after %v and was killed", ErrTimedOut, c.timeout), stderr)
		case errors.Is(cause, ErrOutputTooLarge):
			return fmt.Errorf("%w (more than %d bytes) and was killed", ErrOutputTooLarge, c.maxOutputBytes)
		default:
			// The caller no longer needs the result; whatever text this gets, nobody reads it.
			return cause
		}
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if stderr == "" {
			return fmt.Errorf("failed (%v) and printed nothing on stderr", exit)
		}
		return fmt.Errorf("failed (%v): %s", exit, stderr)
	}
	return fmt.Errorf("could not run %s: %w", c.path, err)
}

// withStderr appends the command's stderr, if any, to err's text.
func withStderr(err error, stderr string) error {
	if stderr == "" {
		return err
	}
	return fmt.Errorf("%w: %s", err, stderr)
}

// limitedBuffer collects stdout up to limit bytes. The first write past the limit calls
// exceeded (which kills the command) and fails, so exec stops copying.
type limitedBuffer struct {
	buf      bytes.Buffer
	limit    int
	exceeded func()
	over     bool
}

// Write implements io.Writer.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	if !b.over && b.buf.Len()+len(p) > b.limit {
		b.over = true
		b.exceeded()
	}
	if b.over {
		return 0, ErrOutputTooLarge
	}
	return b.buf.Write(p)
}

// boundedBuffer keeps the first and the last limit/2 bytes written to it and counts the rest.
type boundedBuffer struct {
	limit      int
	head, tail []byte
	total      int
}

// Write implements io.Writer; it never fails.
func (b *boundedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += n
	half := b.limit / 2
	if room := half - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*half {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-half:]...)
	}
	return n, nil
}

// String returns the kept text, trimmed, with a marker where bytes were left out. Bytes that are
// not UTF-8 (a character cut at the edges, or binary output) are dropped: the text ends up in a
// JSON string.
func (b *boundedBuffer) String() string {
	tail := b.tail
	if half := b.limit / 2; len(tail) > half {
		tail = tail[len(tail)-half:]
	}
	text := string(b.head)
	if omitted := b.total - len(b.head) - len(tail); omitted > 0 {
		text += "\n… " + strconv.Itoa(omitted) + " bytes omitted …\n"
	}
	text += string(tail)
	return strings.TrimSpace(strings.ToValidUTF8(text, ""))
}
