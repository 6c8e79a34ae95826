package jsruntime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Options configures a Provider.
type Options struct {
	// PoolSize is the number of warm runtimes kept ready for cells with the default heap limit.
	// Zero means DefaultPoolSize; a negative value disables the pool.
	PoolSize int
	// CacheDir is wazero's compilation cache directory; "" means os.UserCacheDir()/codemode/wazero.
	// Like qjs itself, only the first runtime created in the process decides it.
	CacheDir string
	// DefaultMaxHeapSizeBytes caps the heap of cells whose session sets no MaxHeapSizeBytes.
	// Zero means DefaultHeapLimitBytes: a cell that eats memory must fail alone, never take the
	// host down, so there is always a cap (wasm32 could otherwise grow to 4 GiB per cell).
	DefaultMaxHeapSizeBytes uint64
	// MaxToolResultBytes bounds a tool result delivered into JavaScript; zero means
	// DefaultMaxToolResultBytes. Larger results reject the call's promise.
	MaxToolResultBytes int
}

// DefaultHeapLimitBytes is the heap cap of cells when neither the session nor
// Options.DefaultMaxHeapSizeBytes sets one.
const DefaultHeapLimitBytes uint64 = 512 << 20

// DefaultPoolSize is the number of warm runtimes when Options.PoolSize is zero.
const DefaultPoolSize = 2

// ErrProviderClosed is returned by a closed Provider.
var ErrProviderClosed = errors.New("jsruntime: provider is closed")

// Provider is the in-process Code Mode session provider: every cell runs on a fresh QuickJS
// runtime (fastschema/qjs, pure Go through wazero) taken from a warm pool. It implements
// codemode.SessionProvider and honours both resource limits.
type Provider struct {
	pool               *pool
	schemas            *schemaCache
	defaultHeapLimit   uint64
	maxToolResultBytes int

	mu       sync.Mutex
	closed   bool
	sessions map[*session]struct{}
}

var _ codemode.SessionProvider = (*Provider)(nil)

// NewProvider starts a provider and its pool of warm runtimes.
func NewProvider(opts Options) (*Provider, error) {
	cacheDir := opts.CacheDir
	if cacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		cacheDir = filepath.Join(base, "codemode", "wazero")
	}
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return nil, fmt.Errorf("jsruntime: create cache dir: %w", err)
	}
	root, err := voidRoot()
	if err != nil {
		return nil, err
	}
	cfg := engineConfig{cacheDir: cacheDir, rootDir: root}
	size := opts.PoolSize
	if size == 0 {
		size = DefaultPoolSize
	}
	p := &Provider{
		schemas:            newSchemaCache(),
		defaultHeapLimit:   cmp.Or(opts.DefaultMaxHeapSizeBytes, DefaultHeapLimitBytes),
		maxToolResultBytes: opts.MaxToolResultBytes,
		sessions:           map[*session]struct{}{},
	}
	if p.maxToolResultBytes <= 0 {
		p.maxToolResultBytes = DefaultMaxToolResultBytes
	}
	// The first runtime is created here, synchronously, so that a broken engine, or one that
	// cannot be interrupted, fails NewProvider instead of its cells.
	first, err := newEngine(cfg, p.defaultHeapLimit)
	if err != nil {
		if strings.Contains(err.Error(), "signature mismatch") {
			// wazero v1.12 checks imports by store-local type IDs, which breaks qjs v0.0.6's
			// compile-once, instantiate-per-runtime pattern; v1.9 (qjs's own requirement) works.
			return nil, fmt.Errorf("jsruntime: %w (qjs v0.0.6 needs github.com/tetratelabs/wazero v1.9.x; newer versions such as v1.12.0 reject its host import)", err)
		}
		return nil, fmt.Errorf("jsruntime: %w", err)
	}
	if err := first.checkInterruptible(); err != nil {
		return nil, fmt.Errorf("jsruntime: %w", err)
	}
	if size < 0 {
		size = 0
	}
	p.pool = newPool(cfg, size, p.defaultHeapLimit)
	return p, nil
}

// Availability reports whether the provider can create sessions.
func (p *Provider) Availability() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrProviderClosed
	}
	return nil
}

// CreateSession opens a session. Both limits are honoured: MaxYieldTimeMs caps yields and
// MaxHeapSizeBytes caps each cell's JavaScript heap (a cell that exceeds it fails with QuickJS's
// "out of memory" error; the session lives on).
func (p *Provider) CreateSession(_ context.Context, d codemode.Delegate, l codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	if d == nil {
		d = codemode.NoopDelegate{}
	}
	s := &session{
		p:        p,
		delegate: d,
		limits:   l,
		cells:    map[codemode.CellID]*cell{},
		stored:   map[string]string{},
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrProviderClosed
	}
	p.sessions[s] = struct{}{}
	return s, nil
}

// Close shuts down every session still open, stops the pool and releases its runtimes.
func (p *Provider) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	sessions := make([]*session, 0, len(p.sessions))
	for s := range p.sessions {
		sessions = append(sessions, s)
	}
	p.mu.Unlock()
	for _, s := range sessions {
		_ = s.Shutdown(context.Background())
	}
	p.pool.close()
	return nil
}

// forget drops a session that finished shutting down.
func (p *Provider) forget(s *session) {
	p.mu.Lock()
	delete(p.sessions, s)
	p.mu.Unlock()
}

// voidRoot returns a path that does not exist, for QuickJS's working directory, which qjs mounts
// read-write at "/": scripts then see no file system at all. The path lies in a fresh private
// temporary directory that is removed at once, so nothing is left behind and no other user can
// have created it.
func voidRoot() (string, error) {
	dir, err := os.MkdirTemp("", "codemode-jsruntime-")
	if err != nil {
		return "", fmt.Errorf("jsruntime: create private dir: %w", err)
	}
	if err := os.Remove(dir); err != nil {
		return "", fmt.Errorf("jsruntime: remove private dir: %w", err)
	}
	return filepath.Join(dir, "no-filesystem"), nil
}
