package tracing

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Sink receives each batch of spans as the body of an OTLP/HTTP JSON export request.
type Sink interface {
	Send(ctx context.Context, batch []byte) error
}

// Exporter is an sdktrace.SpanExporter that encodes each batch in OTLP's JSON encoding and hands
// it to a Sink. The Go SDK's own OTLP/HTTP exporter sends only protobuf; Codex's host sends JSON
// (docs/protocol/grpc.md#tracing), and so does this, so an endpoint or stream reader set up for
// Codex's host reads codemode's batches too.
type Exporter struct {
	sink Sink
}

var _ sdktrace.SpanExporter = (*Exporter)(nil)

// NewExporter returns an exporter that sends every batch to sink.
func NewExporter(sink Sink) *Exporter { return &Exporter{sink: sink} }

// ExportSpans encodes spans as one OTLP JSON batch and sends it.
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return e.sink.Send(ctx, MarshalOTLPJSON(TracesData(spans)))
}

// Shutdown does nothing: the sink belongs to whoever made it.
func (e *Exporter) Shutdown(context.Context) error { return nil }

// exportTimeout bounds one POST to a collector, so that a collector that does not answer cannot
// hold the batch processor (and, at exit, the host's shutdown) for long.
const exportTimeout = 10 * time.Second

// HTTPSink POSTs each batch to an OTLP/HTTP endpoint (a collector's /v1/traces) with
// Content-Type application/json, the encoding --otel-trace-exporter's endpoint gets from Codex's
// host too (docs/protocol/grpc.md#tracing).
type HTTPSink struct {
	url    string
	client *http.Client
}

// NewHTTPSink returns a sink that posts to url.
func NewHTTPSink(url string) *HTTPSink {
	return &HTTPSink{url: url, client: &http.Client{Timeout: exportTimeout}}
}

// Send posts one batch. Any status but 2xx is an error that names the endpoint and quotes the
// start of its answer.
func (s *HTTPSink) Send(ctx context.Context, batch []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(batch))
	if err != nil {
		return fmt.Errorf("exporting spans to %s: %w", s.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("exporting spans to %s: %w", s.url, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("exporting spans to %s: the collector answered %s: %s", s.url, resp.Status, bytes.TrimSpace(answer))
	}
	return nil
}
