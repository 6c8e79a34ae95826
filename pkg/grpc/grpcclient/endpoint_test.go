package grpcclient_test

import (
	"strings"
	"testing"

	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
)

// grpc_endpoints_reject_credentials_without_disclosing_them (Codex's tests/grpc.rs), and the
// other endpoint rules of docs/protocol/grpc.md#endpoints.
func TestGrpcEndpointsRejectCredentialsWithoutDisclosingThem(t *testing.T) {
	for _, endpoint := range []string{
		"http://alice:secret@host.example",
		"https://alice:secret@host.example",
		"https://alice@host.example",
		"https://:secret@host.example",
	} {
		_, err := grpcclient.New(endpoint, grpcclient.Options{})
		if err == nil || err.Error() != "gRPC code-mode endpoint must not include credentials" {
			t.Fatalf("%s: %v", endpoint, err)
		}
		if strings.Contains(err.Error(), "alice") || strings.Contains(err.Error(), "secret") {
			t.Fatalf("the error discloses the credentials: %v", err)
		}
	}
}

func TestEndpointsAreOriginsOrUnixSockets(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:7000", "http://host.example:80/", "https://host.example", "unix:///tmp/codemode.sock", "unix:relative.sock"} {
		if _, err := grpcclient.New(ok, grpcclient.Options{}); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for endpoint, text := range map[string]string{
		"http://host.example/prefix":     "gRPC code-mode endpoint must not include a path, query or fragment",
		"http://host.example/?q=1":       "gRPC code-mode endpoint must not include a path, query or fragment",
		"http://host.example#frag":       "gRPC code-mode endpoint must not include a path, query or fragment",
		"grpc://127.0.0.1:1":             "gRPC code-mode endpoint must use the http, https or unix scheme",
		"alice:secret@host.example":      "gRPC code-mode endpoint must use the http, https or unix scheme",
		"http://":                        "gRPC code-mode endpoint must include a host",
		"unix://":                        "gRPC code-mode endpoint must name a Unix socket path",
		"http://secret@[::1%zz]:bad/x y": "invalid gRPC code-mode endpoint",
	} {
		_, err := grpcclient.New(endpoint, grpcclient.Options{})
		if err == nil || err.Error() != text {
			t.Errorf("%s: %v, want exactly %q", endpoint, err, text)
		}
	}
}
