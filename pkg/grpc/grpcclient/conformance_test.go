package grpcclient_test

import (
	"context"
	"testing"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

// TestConformance runs the one conformance suite, unchanged, over the Go client and the host on
// real sockets on 127.0.0.1, once per protocol the host serves. Real sockets cannot run in a
// synctest bubble, so the suite runs on the real clock and skips the cases that steer time.
func TestConformance(t *testing.T) {
	for _, protocol := range []grpcclient.Protocol{grpcclient.ProtocolGRPC, grpcclient.ProtocolGRPCWeb, grpcclient.ProtocolConnect} {
		t.Run(protocol.String(), func(t *testing.T) {
			// One host serves every subtest, as a host serves many clients; each subtest gets
			// a provider (a connection) of its own.
			url := serve(t)
			codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
				return newProvider(t, url, protocol)
			})
		})
	}
}

// serve runs a host on the in-process QuickJS provider on 127.0.0.1 until the test ends and
// returns its URL.
func serve(t *testing.T) string {
	t.Helper()
	runtime, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		t.Fatalf("jsruntime.NewProvider: %v", err)
	}
	h := grpchost.New(runtime, grpchost.Options{})
	ln, err := grpchost.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if err := runtime.Close(); err != nil {
			t.Errorf("jsruntime Provider.Close: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// newProvider is a client provider for url, closed at cleanup.
func newProvider(t testing.TB, url string, protocol grpcclient.Protocol) *grpcclient.Provider {
	t.Helper()
	p, err := grpcclient.New(url, grpcclient.Options{Protocol: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}
