package grpchost

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"

	"connectrpc.com/connect/v2"
	"google.golang.org/protobuf/proto"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
)

// A compressed request is decompressed by connect into a buffer, up to the message limit plus one
// byte, and only then refused when it was larger: a 1 MiB gzip of zeros made each request hold
// about 250 MB (the 64 MiB of output and the buffer's growth by doubling) before its refusal, and
// sixteen at once took a host past 2 GB. boundedCompressor inflates the request once into nothing,
// counting, and refuses it before connect allocates anything when its decompressed size is past
// the limit, or when the host's memory budget cannot hold it; a request that fits is decompressed
// again for real, with its size taken from the budget until connect closes the reader. Inflating
// twice costs the CPU of a second pass over what fits: the price of never holding a bomb.

// boundedCompressor wraps a connect Compressor's decompression (compression is unchanged).
type boundedCompressor struct {
	connect.Compressor
	limit  int64
	budget MemoryBudget // nil: none
}

// bounded wraps c for this host: the message limit, and the host's budget.
func (h *Host) bounded(c connect.Compressor) connect.Compressor {
	return boundedCompressor{Compressor: c, limit: grpcconv.MaxMessageBytes, budget: h.budget}
}

// Decompress measures src's decompressed size, then decompresses it, or returns a reader whose
// first Read fails with RESOURCE_EXHAUSTED (connect returns a *connect.Error from a read as it
// is).
func (c boundedCompressor) Decompress(src io.Reader) (io.ReadCloser, error) {
	compressed, err := bytesOf(src)
	if err != nil {
		return nil, err
	}
	n, err := c.measure(compressed)
	if err != nil {
		return nil, err
	}
	if n > c.limit {
		return failingReader{connect.Errorf(connect.CodeResourceExhausted, "message is larger than configured max %d once decompressed", c.limit)}, nil
	}
	// bytes.Buffer's growth by doubling may hold up to twice the message while connect reads it.
	charge := 2 * n
	if c.budget != nil && !c.budget.Take(charge) {
		return failingReader{connect.Errorf(connect.CodeResourceExhausted, "the code-mode host's memory budget of %d bytes is spent: a compressed message of %d bytes once decompressed is refused; retry later", c.budget.Limit(), n)}, nil
	}
	r, err := c.Compressor.Decompress(bytes.NewReader(compressed))
	if err != nil {
		c.give(charge)
		return nil, err
	}
	return &chargedReader{ReadCloser: r, give: func() { c.give(charge) }}, nil
}

// measure inflates compressed into nothing and returns its size, counted up to limit+1 bytes.
func (c boundedCompressor) measure(compressed []byte) (int64, error) {
	r, err := c.Compressor.Decompress(bytes.NewReader(compressed))
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(r, c.limit+1))
	if err != nil {
		return 0, fmt.Errorf("decompress: %w", err)
	}
	return n, nil
}

func (c boundedCompressor) give(n int64) {
	if c.budget != nil {
		c.budget.Give(n)
	}
}

// bytesOf returns what src holds: connect hands decompressors a *bytes.Buffer, whose bytes are
// read without copying.
func bytesOf(src io.Reader) ([]byte, error) {
	if b, ok := src.(*bytes.Buffer); ok {
		return b.Bytes(), nil
	}
	return io.ReadAll(src)
}

// failingReader fails every Read with err.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }
func (f failingReader) Close() error             { return nil }

// chargedReader gives its budget charge back once, when connect closes it.
type chargedReader struct {
	io.ReadCloser
	give func()
	done bool
}

// Close closes the decompressor and gives the charge back.
func (r *chargedReader) Close() error {
	if !r.done {
		r.done = true
		r.give()
	}
	return r.ReadCloser.Close()
}

// sendingCopies is how many times its size a response holds while its Send waits for a client
// that stops reading (HTTP/2 flow control blocks the write): the message's own strings, and the
// marshalled message in a buffer that grew by doubling, up to twice its size. Measured: three
// stalled 48 MiB outcomes held 310–340 MiB, 2.2–2.4 times their size.
const sendingCopies = 3

// holdWhileSending charges the host's budget with what sending msg holds, until release is
// called after the Send: the cell's runtime gave its output back to the budget when the outcome
// was taken, and sixteen clients that stopped reading 48 MiB outcomes held 3.2 GB that no budget
// saw. The charge is not refused (the output exists already); while it lasts, cells that would
// grow their heap or output further are refused instead.
func (h *Host) holdWhileSending(msg proto.Message) (release func()) {
	if h.budget == nil {
		return func() {}
	}
	n := sendingCopies * int64(proto.Size(msg))
	h.budget.Charge(n)
	return func() { h.budget.Give(n) }
}

// unaryHolds are the budget charges of a unary response (Wait, Terminate): connect marshals and
// writes the response after the handler returned, so the handler cannot release its charge
// itself; withUnaryHolds releases them once the HTTP handler returned, when the response was
// written (or the client went away).
type unaryHolds struct {
	mu       sync.Mutex
	releases []func()
}

// unaryHoldsKey is the request context's key of its unaryHolds.
type unaryHoldsKey struct{}

// withUnaryHolds gives every request a place for the charges of its response, and gives them
// back once next has written it.
func withUnaryHolds(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		holds := &unaryHolds{}
		defer holds.release()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), unaryHoldsKey{}, holds)))
	})
}

// release gives back every charge.
func (u *unaryHolds) release() {
	u.mu.Lock()
	releases := u.releases
	u.releases = nil
	u.mu.Unlock()
	for _, release := range releases {
		release()
	}
}

// holdUnaryResponse charges the host's budget with what sending msg, the response of the unary
// request of ctx, holds until the response was written (holdWhileSending; a client that stops
// reading a 48 MiB Wait response made the host hold it unseen, ADR 59). The runtime gave the
// output back when the Wait took it. It returns msg.
func (h *Host) holdUnaryResponse(ctx context.Context, msg *pb.WaitResponse) *pb.WaitResponse {
	holds, _ := ctx.Value(unaryHoldsKey{}).(*unaryHolds)
	if holds == nil || h.budget == nil || msg == nil {
		return msg
	}
	release := h.holdWhileSending(msg)
	holds.mu.Lock()
	holds.releases = append(holds.releases, release)
	holds.mu.Unlock()
	return msg
}
