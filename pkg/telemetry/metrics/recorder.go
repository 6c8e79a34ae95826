package metrics

import (
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/codemodehq/codemode/pkg/codemode"
)

// Outcomes of a finished cell, the values of the outcome label.
const (
	// OutcomeOK: the script completed.
	OutcomeOK = "ok"
	// OutcomeScriptError: the script failed (threw, had a syntax error, a tool's rejection went
	// uncaught).
	OutcomeScriptError = "script_error"
	// OutcomeOutOfMemory: the script needed more than its heap limit and was stopped.
	OutcomeOutOfMemory = "out_of_memory"
	// OutcomeTerminated: the cell was stopped before it finished: by Terminate, by its session's
	// shutdown, or because its observer gave up.
	OutcomeTerminated = "terminated"
)

// Results of a tool call or notification, the values of the result label.
const (
	// ResultOK: the call returned a result.
	ResultOK = "ok"
	// ResultError: the call failed.
	ResultError = "error"
	// ResultTimeout: the call failed because the tool ran past its timeout.
	ResultTimeout = "timeout"
	// ResultCancelled: the cell no longer needed the result (it ended or was terminated).
	ResultCancelled = "cancelled"
)

// Directions of the bytes that cross between cells and the host, the values of the direction
// label.
const (
	// IntoCells: cell sources and tool results.
	IntoCells = "into_cell"
	// OutOfCells: tool inputs, notification texts and cell output.
	OutOfCells = "out_of_cell"
)

// Refusal reasons the recorder itself observes on the domain contract; a transport adds its own
// through Refused (docs/operations.md lists them all).
const (
	// RefusedSessionFailed: the provider could not create a session.
	RefusedSessionFailed = "session_failed"
	// RefusedShuttingDown: a cell was sent to a session that is shutting down.
	RefusedShuttingDown = "session_shutting_down"
	// RefusedCellRejected: the session refused a cell for another reason.
	RefusedCellRejected = "cell_rejected"
)

// Options configures a Recorder.
type Options struct {
	// Logger receives the log lines; nil discards them.
	Logger *slog.Logger
	// ToolTimedOut tells a tool's timeout apart from its other failures (the tool sources know
	// their own timeout errors); nil counts every failure as an error.
	ToolTimedOut func(error) bool
	// RefusalReasons are the reasons a transport passes to Refused, so their counters start at
	// zero and show in the first scrape.
	RefusalReasons []string
	// PoolSize is the number of runtimes the provider keeps ready, exported as
	// codemode_runtime_pool_size; negative: not exported (the provider has no pool).
	PoolSize int
	// PoolStats, when set, reports how the provider's pool of runtimes has served cells, exported
	// as codemode_runtime_pool_hits_total, codemode_runtime_pool_misses_total and
	// codemode_runtime_pool_idle. It is called at every scrape, so it must be cheap and safe for
	// concurrent use; it reports zeros while the pool does not exist yet.
	PoolStats func() PoolStats
}

// PoolStats is what Options.PoolStats reports of a provider's pool of runtimes.
type PoolStats struct {
	// Hits counts the cells that found a runtime ready, Misses those that had to create one.
	Hits, Misses uint64
	// Idle is the number of runtimes ready for a cell now.
	Idle int
}

// Recorder holds a host's metrics and writes its log lines. One Recorder serves one process; it
// is safe for concurrent use.
type Recorder struct {
	log      *slog.Logger
	registry *prometheus.Registry
	timedOut func(error) bool
	m        instruments

	nextSession atomic.Uint64
	mu          sync.Mutex
	sessions    map[*session]struct{}
}

// New returns a Recorder with its own registry, on which the Go and process collectors are
// registered too.
func New(opts Options) *Recorder {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	timedOut := opts.ToolTimedOut
	if timedOut == nil {
		timedOut = func(error) bool { return false }
	}
	r := &Recorder{
		log:      log,
		registry: prometheus.NewRegistry(),
		timedOut: timedOut,
		m:        newInstruments(),
		sessions: make(map[*session]struct{}),
	}
	r.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.m.register(r.registry)
	for _, reason := range append([]string{RefusedSessionFailed, RefusedShuttingDown, RefusedCellRejected}, opts.RefusalReasons...) {
		r.m.refusals.WithLabelValues(reason)
	}
	if opts.PoolSize >= 0 {
		pool := prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "codemode_runtime_pool_size",
			Help: "Runtimes the host keeps ready for new cells (--pool-size).",
		})
		pool.Set(float64(opts.PoolSize))
		r.registry.MustRegister(pool)
	}
	if opts.PoolStats != nil {
		r.registry.MustRegister(poolCollectors(opts.PoolStats)...)
	}
	return r
}

// poolCollectors export the pool's counters, read from stats at each scrape: the pool keeps them
// itself, so the recorder holds no copy that could drift.
func poolCollectors(stats func() PoolStats) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "codemode_runtime_pool_hits_total",
			Help: "Cells that found a runtime ready in the pool (idle, or put back by a cell that had just ended).",
		}, func() float64 { return float64(stats().Hits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "codemode_runtime_pool_misses_total",
			Help: "Cells that found no runtime ready and had to create one (milliseconds of CPU).",
		}, func() float64 { return float64(stats().Misses) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "codemode_runtime_pool_idle",
			Help: "Runtimes ready for a cell now.",
		}, func() float64 { return float64(stats().Idle) }),
	}
}

// Registry returns the registry the metrics are on, for a caller that registers its own.
func (r *Recorder) Registry() *prometheus.Registry { return r.registry }

// Handler serves the metrics in Prometheus' text exposition format (or OpenMetrics, when the
// scraper asks for it).
func (r *Recorder) Handler() http.Handler {
	return promhttp.HandlerFor(r.registry, promhttp.HandlerOpts{Registry: r.registry, EnableOpenMetrics: true})
}

// Provider decorates p: its sessions, cells, tool calls and notifications are counted and
// logged.
func (r *Recorder) Provider(p codemode.SessionProvider) codemode.SessionProvider {
	return &provider{inner: p, r: r}
}

// Refused counts and logs a request a transport refused before it reached a session: reason is
// one of a fixed set (never a value from the request), attrs say where (a procedure, a path).
func (r *Recorder) Refused(reason string, attrs ...any) {
	r.m.refusals.WithLabelValues(reason).Inc()
	r.log.Warn("code-mode request refused", append([]any{"reason", reason}, attrs...)...)
}

// Load is what the host holds right now.
type Load struct {
	// Sessions are the open sessions.
	Sessions int
	// Cells are the cells admitted and not yet closed.
	Cells int
}

// Load returns the open sessions and live cells.
func (r *Recorder) Load() Load {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := Load{Sessions: len(r.sessions)}
	for s := range r.sessions {
		l.Cells += s.liveCells()
	}
	return l
}

func (r *Recorder) add(s *session) {
	r.mu.Lock()
	r.sessions[s] = struct{}{}
	r.mu.Unlock()
}

func (r *Recorder) remove(s *session) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.sessions[s]
	delete(r.sessions, s)
	return ok
}
