package metrics

import "github.com/prometheus/client_golang/prometheus"

// instruments are the host's metrics. Every labelled series is created up front with its label
// values (all of them bounded sets), so a scrape shows zeros before the first event and a rate
// over a fresh host is defined.
type instruments struct {
	sessionsOpen     prometheus.Gauge
	sessionsOpened   prometheus.Counter
	cellsStarted     prometheus.Counter
	cellsLive        prometheus.Gauge
	cellsFinished    *prometheus.CounterVec
	cellDuration     *prometheus.HistogramVec
	cellYields       prometheus.Counter
	cellPeakHeap     prometheus.Histogram
	toolCalls        *prometheus.CounterVec
	toolDuration     *prometheus.HistogramVec
	notifications    *prometheus.CounterVec
	notifyDuration   prometheus.Histogram
	bridgeBytes      *prometheus.CounterVec
	refusals         *prometheus.CounterVec
	sessionFailures  prometheus.Counter
	cellOutcomes     []string
	toolResults      []string
	notifyResults    []string
	bridgeDirections []string
}

func newInstruments() instruments {
	m := instruments{
		cellOutcomes:     []string{OutcomeOK, OutcomeScriptError, OutcomeOutOfMemory, OutcomeTerminated},
		toolResults:      []string{ResultOK, ResultError, ResultTimeout, ResultCancelled},
		notifyResults:    []string{ResultOK, ResultError, ResultCancelled},
		bridgeDirections: []string{IntoCells, OutOfCells},
	}
	m.sessionsOpen = prometheus.NewGauge(prometheus.GaugeOpts{Name: "codemode_sessions_open", Help: "Sessions open now."})
	m.sessionsOpened = prometheus.NewCounter(prometheus.CounterOpts{Name: "codemode_sessions_opened_total", Help: "Sessions opened since the host started."})
	m.cellsStarted = prometheus.NewCounter(prometheus.CounterOpts{Name: "codemode_cells_started_total", Help: "Cells admitted since the host started."})
	m.cellsLive = prometheus.NewGauge(prometheus.GaugeOpts{Name: "codemode_cells_live", Help: "Cells admitted and not yet closed."})
	m.cellsFinished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "codemode_cells_finished_total",
		Help: "Cells closed, by outcome: ok, script_error, out_of_memory, terminated.",
	}, []string{"outcome"})
	m.cellDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "codemode_cell_duration_seconds",
		Help:    "Time from a cell's admission to its close, by outcome.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10), // 1 ms … 262 s
	}, []string{"outcome"})
	m.cellYields = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "codemode_cell_yields_total",
		Help: "Observations (exec or wait) that returned with the cell still running: its yield deadline passed, it called yield_control(), or the client asked it to yield.",
	})
	m.cellPeakHeap = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "codemode_cell_peak_heap_bytes",
		Help:    "The most memory a cell's runtime held while the cell ran (the runtime's linear memory: the image every cell starts from, about 9 MiB, plus what the cell grew it by), observed when the cell closes.",
		Buckets: prometheus.ExponentialBuckets(1<<20, 2, 13), // 1 MiB … 4 GiB, wasm32's most
	})
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "codemode_tool_calls_total",
		Help: "Nested tool calls that ended, by result: ok, error, timeout, cancelled.",
	}, []string{"result"})
	m.toolDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "codemode_tool_call_duration_seconds",
		Help:    "Time from a nested tool call's start to its result, by result.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10), // 0.5 ms … 131 s
	}, []string{"result"})
	m.notifications = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "codemode_notifications_total",
		Help: "notify() texts delivered to the tool owner, by result: ok, error, cancelled.",
	}, []string{"result"})
	m.notifyDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "codemode_notification_duration_seconds",
		Help:    "Time to deliver a notify() text to the tool owner.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 9), // 0.1 ms … 6.6 s
	})
	m.bridgeBytes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "codemode_bridge_bytes_total",
		Help: "Bytes between cells and the host: into_cell (sources, tool results), out_of_cell (tool inputs, notifications, output).",
	}, []string{"direction"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "codemode_refusals_total",
		Help: "Requests refused before they ran, by reason.",
	}, []string{"reason"})
	m.sessionFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "codemode_session_failures_total",
		Help: "Failures no response carries (a delegate that panicked, a runtime that died), as reported to the session's owner.",
	})
	return m
}

// register registers every instrument on reg and creates the labelled series.
func (m instruments) register(reg *prometheus.Registry) {
	reg.MustRegister(m.sessionsOpen, m.sessionsOpened, m.cellsStarted, m.cellsLive, m.cellsFinished,
		m.cellDuration, m.cellYields, m.cellPeakHeap, m.toolCalls, m.toolDuration, m.notifications, m.notifyDuration,
		m.bridgeBytes, m.refusals, m.sessionFailures)
	for _, o := range m.cellOutcomes {
		m.cellsFinished.WithLabelValues(o)
		m.cellDuration.WithLabelValues(o)
	}
	for _, r := range m.toolResults {
		m.toolCalls.WithLabelValues(r)
		m.toolDuration.WithLabelValues(r)
	}
	for _, r := range m.notifyResults {
		m.notifications.WithLabelValues(r)
	}
	for _, d := range m.bridgeDirections {
		m.bridgeBytes.WithLabelValues(d)
	}
}
