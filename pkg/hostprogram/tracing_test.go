package hostprogram

import (
	"net/netip"
	"strings"
	"testing"
)

func TestTraceFlagsParse(t *testing.T) {
	if ap, err := ParseTraceListen("ws://127.0.0.1:0"); err != nil || ap != netip.MustParseAddrPort("127.0.0.1:0") {
		t.Errorf("ParseTraceListen(ws://127.0.0.1:0) = %v, %v", ap, err)
	}
	for _, bad := range []string{"http://127.0.0.1:0", "ws://localhost:4319", "127.0.0.1:4319"} {
		if _, err := ParseTraceListen(bad); err == nil || !strings.Contains(err.Error(), "unsupported --otel-trace-listen URL `"+bad+"`; expected `ws://IP:PORT`") {
			t.Errorf("ParseTraceListen(%q) = %v, want the unsupported-URL error", bad, err)
		}
	}
	for _, good := range []string{"http://127.0.0.1:4318/v1/traces", "https://collector.example:4318/v1/traces"} {
		if u, err := ParseTraceExporter(good); err != nil || u != good {
			t.Errorf("ParseTraceExporter(%q) = %q, %v", good, u, err)
		}
	}
	for _, bad := range []string{"nonsense", "ws://127.0.0.1:4318", "http:///v1/traces"} {
		if _, err := ParseTraceExporter(bad); err == nil || !strings.Contains(err.Error(), "invalid --otel-trace-exporter URL `"+bad+"`") {
			t.Errorf("ParseTraceExporter(%q) = %v, want the invalid-URL error", bad, err)
		}
	}
}

func TestCheckTracing(t *testing.T) {
	open := netip.MustParseAddrPort("0.0.0.0:4319")
	for _, c := range []struct {
		name string
		cfg  Config
		want string // "" accepted
	}{
		{"exporter", Config{OTelTraceExporter: "http://127.0.0.1:4318/v1/traces"}, ""},
		{"loopback stream", Config{OTelTraceListen: netip.MustParseAddrPort("[::1]:0")}, ""},
		{"both", Config{OTelTraceExporter: "http://127.0.0.1:4318/v1/traces", OTelTraceListen: netip.MustParseAddrPort("127.0.0.1:0")}, "--otel-trace-listen cannot be used with --otel-trace-exporter"},
		{"open stream without a token", Config{OTelTraceListen: open}, "is not a loopback address: a trace stream reachable from the network needs a bearer token"},
		{"open stream with a short token", Config{OTelTraceListen: open, Token: "short"}, "--token (or $CODEMODE_HOST_TOKEN)"},
		{"open stream with a token", Config{OTelTraceListen: open, Token: strings.Repeat("t", 32)}, ""},
	} {
		err := c.cfg.checkTracing()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
