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
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime/internal/engine"
)

// Options configures a Provider. Every zero value means the documented default.
type Options struct {
	// PoolSize is the number of idle runtimes kept ready: runtimes are reset and reused after
	// each cell, and this many are created ahead of demand. Zero means DefaultPoolSize; a
	// negative value keeps none ready (cells then create runtimes as they need them).
	PoolSize int
	// CacheDir is wazero's compilation cache directory; "" means os.UserCacheDir()/codemode/wazero,
	// or a cache in memory when that cannot be created.
	// Like qjs itself, only the first runtime created in the process decides it.
	CacheDir string
	// DefaultMaxHeapSizeBytes caps the heap of cells whose session sets no MaxHeapSizeBytes.
	// Zero means DefaultHeapLimitBytes: a cell that eats memory must fail alone, never take the
	// host down, so there is always a cap (wasm32 could otherwise grow to 4 GiB per cell).
	DefaultMaxHeapSizeBytes uint64
	// MaxToolResultBytes bounds a tool result delivered into JavaScript; zero means
	// DefaultMaxToolResultBytes. Larger results reject the call's promise.
	MaxToolResultBytes int
	// MaxOutputBytes bounds a cell's output that no observer has taken yet (text bytes plus URL
	// bytes); zero means DefaultMaxOutputBytes. Past it, text(), image() and audio() throw. It
	// also bounds the text of notifications the delegate has not yet taken: past it, notify()
	// waits for the delegate.
	MaxOutputBytes int
	// MaxStoredValues and MaxStoredBytes bound a session's stored values: their number, and the
	// bytes of their keys and JSON. Zero means DefaultMaxStoredValues / DefaultMaxStoredBytes.
	// Past them, store() throws.
	MaxStoredValues, MaxStoredBytes int
	// MaxPendingTimers and MaxPendingToolCalls bound what one cell has in flight. Zero means
	// DefaultMaxPendingTimers / DefaultMaxPendingToolCalls. Past them, setTimeout throws and a
	// tool call's promise is rejected.
	MaxPendingTimers, MaxPendingToolCalls int
	// MemoryBudget, when set, is the host's memory budget, shared with whatever else the host
	// counts in it: every byte a cell's heap grows by beyond its runtime's image, and three times
	// every byte of a cell's output that no observer has taken yet (what sending it will hold),
	// are taken from it while held. A heap growth
	// it cannot cover fails the cell with outOfBudgetTextFormat's error; an output item it cannot
	// cover makes text() (image(), audio()) throw outputBudgetText. nil: no budget beyond the
	// per-cell caps.
	MemoryBudget MemoryBudget
	// UnobservedCellTimeout is how long a live cell may have no observer before it is
	// reclaimed: a cell that yielded (or whose observer went away, or that completed with nobody
	// to take its Result) and that no Wait, Terminate or pending observation has reached since
	// is terminated and closed, exactly once, as an abandoned one is; a later Wait finds no cell
	// (codemode.MissingCellOutcome). Zero means DefaultUnobservedCellTimeout; a negative value
	// keeps unobserved cells until their session shuts down.
	UnobservedCellTimeout time.Duration
}

// MemoryBudget is the host's memory budget as the runtime uses it (membudget.Budget implements it).
type MemoryBudget interface {
	// Take takes n bytes if the budget still holds them and reports whether it did.
	Take(n int64) bool
	// Charge takes n bytes even past the budget: the small grants every cell has (its first
	// heap growth, its first output) so that a host whose budget others spent still answers
	// small cells.
	Charge(n int64)
	// Give gives back n bytes taken earlier.
	Give(n int64)
	// Limit is the budget's size in bytes, which the errors name.
	Limit() int64
}

// The defaults of Options.
const (
	// DefaultHeapLimitBytes is the heap cap of cells when neither the session nor
	// Options.DefaultMaxHeapSizeBytes sets one.
	DefaultHeapLimitBytes uint64 = 512 << 20
	// DefaultPoolSize is the number of idle runtimes kept ready when Options.PoolSize is zero.
	DefaultPoolSize = 2
	// DefaultMaxOutputBytes is the V1 frame limit (docs/protocol/v1.md#framing): more unobserved
	// output could never be sent.
	DefaultMaxOutputBytes = 64 << 20
	// DefaultMaxStoredValues and DefaultMaxStoredBytes bound a session's stored values
	// (docs/protocol/javascript.md#limits); they are newer Codex's numbers, so a script that
	// stays within Codex's store stays within codemode's.
	DefaultMaxStoredValues = 256
	DefaultMaxStoredBytes  = 8 << 20
	// DefaultMaxPendingTimers and DefaultMaxPendingToolCalls bound one cell's work in flight.
	DefaultMaxPendingTimers    = 1 << 20
	DefaultMaxPendingToolCalls = 1 << 17
)

// noBudget is the budget of a provider without Options.MemoryBudget: it covers everything.
type noBudget struct{}

func (noBudget) Take(int64) bool { return true }
func (noBudget) Charge(int64)    {}
func (noBudget) Give(int64)      {}
func (noBudget) Limit() int64    { return 0 }

// ErrProviderClosed is returned by a closed Provider.
var ErrProviderClosed = errors.New("jsruntime: provider is closed")

// ErrZeroHeapLimit refuses a session whose MaxHeapSizeBytes is zero: no cell could run in it.
var ErrZeroHeapLimit = errors.New("code-mode session limit max_heap_size_bytes must be greater than zero")

// wasm32Bytes is the most linear memory a runtime can have: its address space is reserved whole
// where the platform allows (memory.go), so any heap limit fits.
const wasm32Bytes = 4 << 30

// cellLimits are the per-cell bounds every session of a provider shares.
type cellLimits struct {
	maxOutputBytes      int
	maxPendingTimers    int
	maxPendingToolCalls int
}

// Provider is the in-process Code Mode session provider: cells run on QuickJS runtimes
// (fastschema/qjs, pure Go through wazero) that are reset to a clean image after every cell. It
// implements codemode.SessionProvider and honours both resource limits.
type Provider struct {
	pool               *engine.Pool
	defaultHeapLimit   uint64
	maxToolResultBytes int
	limits             cellLimits
	storeLimits        storeLimits
	// budget is Options.MemoryBudget, or noBudget.
	budget MemoryBudget
	// unobservedAfter is Options.UnobservedCellTimeout with its default; ≤ 0: never.
	unobservedAfter time.Duration

	mu       sync.Mutex
	closed   bool
	sessions map[*session]struct{}
}

var _ codemode.SessionProvider = (*Provider)(nil)

// runtimes is the provider's pool as the cell layer sees it (vm.go).
func (p *Provider) runtimes() runtimes { return poolRuntimes{p.pool} }

// NewProvider starts a provider and its pool of runtimes. It prepares the first runtime itself,
// whose memory image every later one adopts, and proves on a second one that a running script can
// be interrupted, so that a broken engine fails here instead of in a cell.
func NewProvider(opts Options) (*Provider, error) { return newProvider(opts, thePrelude()) }

// newProvider is NewProvider with the prelude every runtime installs: the tests' forging prelude
// hands the bridge to cell code, as the threat model allows.
func newProvider(opts Options, prelude engine.Prelude) (*Provider, error) {
	cfg, err := engineConfigFor(opts, prelude)
	if err != nil {
		return nil, err
	}
	p := &Provider{
		defaultHeapLimit:   cmp.Or(opts.DefaultMaxHeapSizeBytes, DefaultHeapLimitBytes),
		maxToolResultBytes: cmp.Or(max(opts.MaxToolResultBytes, 0), DefaultMaxToolResultBytes),
		limits: cellLimits{
			maxOutputBytes:      cmp.Or(max(opts.MaxOutputBytes, 0), DefaultMaxOutputBytes),
			maxPendingTimers:    cmp.Or(max(opts.MaxPendingTimers, 0), DefaultMaxPendingTimers),
			maxPendingToolCalls: cmp.Or(max(opts.MaxPendingToolCalls, 0), DefaultMaxPendingToolCalls),
		},
		storeLimits: storeLimits{
			maxValues: cmp.Or(max(opts.MaxStoredValues, 0), DefaultMaxStoredValues),
			maxBytes:  cmp.Or(max(opts.MaxStoredBytes, 0), DefaultMaxStoredBytes),
		},
		sessions:        map[*session]struct{}{},
		budget:          noBudget{},
		unobservedAfter: cmp.Or(opts.UnobservedCellTimeout, DefaultUnobservedCellTimeout),
	}
	if opts.MemoryBudget != nil {
		p.budget = opts.MemoryBudget
		cfg.Budget = opts.MemoryBudget
	}
	warm := opts.PoolSize
	if warm == 0 {
		warm = DefaultPoolSize
	}
	warm = max(warm, 0)
	if p.pool, err = engine.Start(cfg, warm, max(warm, 64)); err != nil {
		if strings.Contains(err.Error(), "signature mismatch") {
			// wazero v1.12 checks imports by store-local type IDs, which breaks qjs v0.0.6's
			// compile-once, instantiate-per-runtime pattern; v1.9 (qjs's own requirement) works.
			return nil, fmt.Errorf("jsruntime: %w (qjs v0.0.6 needs github.com/tetratelabs/wazero v1.9.x; newer versions such as v1.12.0 reject its host import)", err)
		}
		return nil, fmt.Errorf("jsruntime: %w", err)
	}
	return p, nil
}

// engineConfigFor prepares the directories every runtime of a provider uses.
func engineConfigFor(opts Options, prelude engine.Prelude) (engine.Config, error) {
	cacheDir, err := compileCacheDir(opts.CacheDir)
	if err != nil {
		return engine.Config{}, err
	}
	root, err := voidRoot()
	if err != nil {
		return engine.Config{}, err
	}
	return engine.Config{CacheDir: cacheDir, RootDir: root, Reserve: wasm32Bytes, Prelude: prelude}, nil
}

// compileCacheDir returns the directory of wazero's compilation cache, created: the one given,
// or by default os.UserCacheDir()/codemode/wazero (the temporary directory without a user cache
// directory). The cache only saves compiling qjs.wasm again in the next process, so when the
// default cannot be created (a read-only home, a file where the directory should be, a stripped
// environment such as a tool's) the cache lives in memory ("") instead of failing the runtime; a
// directory the caller chose must be usable.
func compileCacheDir(given string) (string, error) {
	if given != "" {
		if err := os.MkdirAll(given, 0o700); err != nil {
			return "", fmt.Errorf("jsruntime: create cache dir: %w", err)
		}
		return given, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "codemode", "wazero")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil
	}
	return dir, nil
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
// MaxHeapSizeBytes caps each cell's JavaScript heap (a cell that exceeds it fails with an
// out-of-memory error; the session lives on). A zero MaxHeapSizeBytes is refused.
func (p *Provider) CreateSession(_ context.Context, d codemode.Delegate, l codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	if l.MaxHeapSizeBytes != nil && *l.MaxHeapSizeBytes == 0 {
		return nil, ErrZeroHeapLimit
	}
	if d == nil {
		d = codemode.NoopDelegate{}
	}
	s := &session{
		p:        p,
		delegate: d,
		limits:   l,
		cells:    map[codemode.CellID]*cell{},
		stored:   storedValues{},
		idle:     newIdleTable(p.unobservedAfter),
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
	p.pool.Close()
	return nil
}

// PoolStats is how the provider's pool of runtimes has served cells.
type PoolStats struct {
	// Hits counts the cells that found a runtime ready (idle, or just put back by a cell that
	// ended); Misses those that had to create one, which costs milliseconds of CPU.
	Hits, Misses uint64
	// Idle is the number of runtimes ready for a cell now.
	Idle int
}

// PoolStats returns what the pool has counted so far. It is safe for concurrent use.
func (p *Provider) PoolStats() PoolStats {
	s := p.pool.Stats()
	return PoolStats{Hits: s.Hits, Misses: s.Misses, Idle: p.pool.Idle()}
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
