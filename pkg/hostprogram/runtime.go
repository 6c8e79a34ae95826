package hostprogram

import (
	"context"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/jsruntime"
	"github.com/codemodehq/codemode/pkg/telemetry/metrics"
	"github.com/codemodehq/codemode/pkg/telemetry/tracing"
	"github.com/codemodehq/codemode/pkg/toolsources/toolprovider"
)

// runtimeActor owns the in-process QuickJS provider. It starts the provider while the listeners
// are already bound (a first provider takes ~100 ms, most of the host's start), and closes it
// only after every listener has drained, so that draining sessions still have their runtime.
type runtimeActor struct {
	opts jsruntime.Options

	ready    chan struct{} // closed once p or err is set
	p        *jsruntime.Provider
	err      error
	stop     chan struct{}
	stopOnce sync.Once
	// listenersDone is closed when every listener actor has returned.
	listenersDone <-chan struct{}
}

func newRuntimeActor(opts jsruntime.Options, listenersDone <-chan struct{}) *runtimeActor {
	return &runtimeActor{opts: opts, ready: make(chan struct{}), stop: make(chan struct{}), listenersDone: listenersDone}
}

// execute starts the provider, then holds it until interrupted and the listeners are done.
func (r *runtimeActor) execute() error {
	p, err := jsruntime.NewProvider(r.opts)
	if err != nil {
		r.err = fmt.Errorf("starting the JavaScript runtime: %w", err)
		close(r.ready)
		return r.err
	}
	r.p = p
	close(r.ready)
	<-r.stop
	<-r.listenersDone
	if err := p.Close(); err != nil {
		return fmt.Errorf("closing the JavaScript runtime: %w", err)
	}
	return nil
}

// interrupt lets execute close the provider once the listeners are done.
func (r *runtimeActor) interrupt(error) { r.stopOnce.Do(func() { close(r.stop) }) }

// provider waits until the runtime has started.
func (r *runtimeActor) provider(ctx context.Context) (*jsruntime.Provider, error) {
	select {
	case <-r.ready:
		return r.p, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the JavaScript runtime to start: %w", ctx.Err())
	}
}

// poolStats is how the provider's pool of runtimes has served cells, for the metrics: zeros while
// the runtime starts or when it failed to, since a scrape must never wait for it.
func (r *runtimeActor) poolStats() metrics.PoolStats {
	select {
	case <-r.ready:
	default:
		return metrics.PoolStats{}
	}
	if r.p == nil {
		return metrics.PoolStats{}
	}
	s := r.p.PoolStats()
	return metrics.PoolStats{Hits: s.Hits, Misses: s.Misses, Idle: s.Idle}
}

// hostedProvider is the SessionProvider the listeners serve: the runtime, with the host's caps
// on every session's limits and the manifest's tools, if any, offered to every cell.
type hostedProvider struct {
	runtime *runtimeActor
	caps    codemode.SessionCellExecutionLimits
	tools   toolprovider.ToolSet // the manifest's command and MCP tools; nil without a manifest
	// metrics decorates the runtime's sessions, inside the tool router so that it sees every
	// tool call, the manifest's too; nil leaves them bare.
	metrics *metrics.Recorder
	// tracer traces the runtime's sessions (cells, tool calls, notifications), inside the tool
	// router as metrics does; nil: no spans.
	tracer trace.Tracer
}

var _ codemode.SessionProvider = (*hostedProvider)(nil)

// Availability reports the runtime's availability; a runtime still starting is available
// (CreateSession waits for it), one that failed to start is not.
func (h *hostedProvider) Availability() error {
	select {
	case <-h.runtime.ready:
		if h.runtime.err != nil {
			return h.runtime.err
		}
		return h.runtime.p.Availability()
	default:
		return nil
	}
}

// CreateSession creates a runtime session within the host's caps.
func (h *hostedProvider) CreateSession(ctx context.Context, d codemode.Delegate, l codemode.SessionCellExecutionLimits) (codemode.Session, error) {
	p, err := h.runtime.provider(ctx)
	if err != nil {
		return nil, err
	}
	if h.tools != nil {
		d = newToolRouter(d, h.tools)
	}
	var runtime codemode.SessionProvider = p
	if h.metrics != nil {
		runtime = h.metrics.Provider(p)
	}
	if h.tracer != nil {
		runtime = tracing.WrapProvider(runtime, h.tracer)
	}
	s, err := runtime.CreateSession(ctx, d, capLimits(l, h.caps))
	if err != nil || h.tools == nil {
		return s, err
	}
	return &toolSession{Session: s, tools: h.tools.Definitions()}, nil
}

// capLimits applies the host's caps to a session's limits: a cap replaces a larger or missing
// limit.
func capLimits(l, caps codemode.SessionCellExecutionLimits) codemode.SessionCellExecutionLimits {
	return codemode.SessionCellExecutionLimits{
		MaxYieldTimeMs:   capped(l.MaxYieldTimeMs, caps.MaxYieldTimeMs),
		MaxHeapSizeBytes: capped(l.MaxHeapSizeBytes, caps.MaxHeapSizeBytes),
	}
}

func capped(v, limit *uint64) *uint64 {
	if limit == nil || (v != nil && *v <= *limit) {
		return v
	}
	c := *limit
	return &c
}
