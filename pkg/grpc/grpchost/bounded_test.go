package grpchost_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// budget is a host memory budget for the tests (pkg/internal/membudget's, simplified).
type budget struct {
	limit int64
	used  atomic.Int64
}

func (b *budget) Take(n int64) bool {
	if b.used.Add(n) > b.limit {
		b.used.Add(-n)
		return false
	}
	return true
}
func (b *budget) Charge(n int64) { b.used.Add(n) }
func (b *budget) Give(n int64)   { b.used.Add(-n) }
func (b *budget) Limit() int64   { return b.limit }

// gzipOfZeros is a gzip stream of n zero bytes.
func gzipOfZeros(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, io.LimitReader(zeros{}, int64(n))); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// postGzip posts body as a gzip-compressed Connect unary request and returns the status and the
// error body.
func postGzip(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/codex.code_mode.v1.CodeModeHost/CloseSession", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/proto")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestCompressionBombsAreRefusedUnread: a gzip request that would decompress past the 64 MiB
// message limit is refused RESOURCE_EXHAUSTED without being inflated into memory (the budget
// never held it), and one within the limit that the host's memory budget cannot hold is refused
// with the budget's text; the budget is whole again after each.
func TestCompressionBombsAreRefusedUnread(t *testing.T) {
	b := &budget{limit: 1 << 20}
	srv := startServer(t, newJSProvider(t), grpchost.Options{MemoryBudget: b})

	code, body := postGzip(t, srv.url, gzipOfZeros(t, 256<<20))
	if code != http.StatusTooManyRequests || !strings.Contains(body, `"resource_exhausted"`) || !strings.Contains(body, "message is larger than configured max 67108864 once decompressed") {
		t.Fatalf("a 256 MiB bomb: %d %s", code, body)
	}
	code, body = postGzip(t, srv.url, gzipOfZeros(t, 600<<10))
	if code != http.StatusTooManyRequests || !strings.Contains(body, "the code-mode host's memory budget of 1048576 bytes is spent: a compressed message of 614400 bytes once decompressed is refused") {
		t.Fatalf("600 KiB past the budget: %d %s", code, body)
	}
	if u := b.used.Load(); u != 0 {
		t.Fatalf("the budget holds %d bytes", u)
	}
}
