package tracing

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of every span this module makes.
const ScopeName = "github.com/codemodehq/codemode"

// BatchTimeout is how long a finished span waits, at most, before its batch is exported. Codex's
// host exports every 5 seconds as well; a host that shuts down exports what is left at once.
const BatchTimeout = 5 * time.Second

// Service names the program in every span's resource (service.name, service.version).
type Service struct {
	Name    string
	Version string
}

// NewTracerProvider returns a tracer provider that samples every trace (or follows the sampling
// decision of a caller's trace context) and exports through exporter in batches. Shut it down to
// export the spans still waiting.
func NewTracerProvider(exporter sdktrace.SpanExporter, service Service) *sdktrace.TracerProvider {
	attrs := []attribute.KeyValue{attribute.String("service.name", service.Name)}
	if service.Version != "" {
		attrs = append(attrs, attribute.String("service.version", service.Version))
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attrs...))
	if err != nil { // only conflicting schema URLs fail, and ours has none
		res = resource.NewSchemaless(attrs...)
	}
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exporter, sdktrace.WithBatchTimeout(BatchTimeout)),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())),
	)
}

// Tracer is the module's tracer from tp.
func Tracer(tp trace.TracerProvider) trace.Tracer { return tp.Tracer(ScopeName) }
