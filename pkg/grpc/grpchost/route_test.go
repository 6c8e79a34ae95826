package grpchost_test

import (
	"context"
	"testing"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpcconv"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// Per-session routing (docs/protocol/grpc.md#routing): the host names itself on OpenSession, and a request for a
// session it does not hold says the route was lost only when it carries another host's route.

func TestOpenSessionReturnsTheHostsRoute(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{Route: "host-a"})
	if srv.host.Route() != "host-a" {
		t.Fatalf("Route() = %q", srv.host.Route())
	}
	ctx, info := connect.NewClientContext(context.Background())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := srv.client.OpenSession(ctx, &pb.OpenSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Receive(); err != nil {
		t.Fatal(err)
	}
	if got := info.ResponseHeader().Get(grpcconv.RouteHeader); got != "host-a" {
		t.Fatalf("%s = %q, want host-a", grpcconv.RouteHeader, got)
	}
}

func TestDefaultRoutesAreUniquePerHost(t *testing.T) {
	a := grpchost.New(newJSProvider(t), grpchost.Options{})
	b := grpchost.New(newJSProvider(t), grpchost.Options{})
	if a.Route() == "" || a.Route() == b.Route() {
		t.Fatalf("routes %q and %q, want two different non-empty ones", a.Route(), b.Route())
	}
}

// Every request that names a session says route lost for an unknown session with a foreign
// route, and only then; the status is the unknown session's NOT_FOUND in every case, over every
// protocol.
func TestUnknownSessionWithAForeignRouteSaysTheRouteWasLost(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{Route: "host-a"})
	const unknown = "0b7e0cf4-6f1d-4b8a-9a51-6a1c5d1e2f3a"
	protocols := map[string]connecthttp.Option{"grpc": connecthttp.WithGRPC(), "grpcweb": connecthttp.WithGRPCWeb(), "connect": nil}
	for name, opt := range protocols {
		var opts []connecthttp.Option
		if opt != nil {
			opts = append(opts, opt)
		}
		client := rawClient(t, srv.url, opts...)
		calls := map[string]func(context.Context) error{
			"Execute": func(ctx context.Context) error {
				s, err := client.Execute(ctx, request(unknown, "execution-1", `text(1)`))
				if err != nil {
					return err
				}
				defer s.Close()
				_, err = s.Receive()
				return err
			},
			"SubscribeToToolCalls": func(ctx context.Context) error {
				s, err := client.SubscribeToToolCalls(ctx, &pb.SubscribeToToolCallsRequest{SessionId: unknown})
				if err != nil {
					return err
				}
				defer s.Close()
				_, err = s.Receive()
				return err
			},
			"Wait": func(ctx context.Context) error {
				_, err := client.Wait(ctx, &pb.WaitRequest{SessionId: unknown, CellId: "1", WaitId: "wait-1"})
				return err
			},
			"CancelWait": func(ctx context.Context) error {
				_, err := client.CancelWait(ctx, &pb.CancelWaitRequest{SessionId: unknown, WaitId: "wait-1"})
				return err
			},
			"Terminate": func(ctx context.Context) error {
				_, err := client.Terminate(ctx, &pb.TerminateRequest{SessionId: unknown, CellId: "1"})
				return err
			},
			"CompleteToolCall": func(ctx context.Context) error {
				_, err := client.CompleteToolCall(ctx, &pb.CompleteToolCallRequest{SessionId: unknown, InvocationId: unknown,
					Outcome: &pb.CompleteToolCallRequest_Failed{Failed: &pb.ToolCallFailed{Message: "x"}}})
				return err
			},
			"AcknowledgeNotification": func(ctx context.Context) error {
				_, err := client.AcknowledgeNotification(ctx, &pb.AcknowledgeNotificationRequest{SessionId: unknown, NotificationId: unknown})
				return err
			},
			"CloseSession": func(ctx context.Context) error {
				_, err := client.CloseSession(ctx, &pb.CloseSessionRequest{SessionId: unknown})
				return err
			},
		}
		for rpc, call := range calls {
			for _, route := range []string{"host-b", "host-a", ""} {
				ctx, info := connect.NewClientContext(context.Background())
				if route != "" {
					info.RequestHeader().Set(grpcconv.RouteHeader, route)
				}
				err := call(ctx)
				label := name + " " + rpc + " route " + route
				wantStatus(t, label, err, connect.CodeNotFound, "unknown code-mode session "+unknown)
				lost := info.ResponseHeader().Get(grpcconv.RouteLostHeader) == "true" || info.ResponseTrailer().Get(grpcconv.RouteLostHeader) == "true"
				if want := route == "host-b"; lost != want {
					t.Errorf("%s: route lost %v, want %v", label, lost, want)
				}
			}
		}
	}
}

// A full host refuses admission with RESOURCE_EXHAUSTED, so that a client retries (and a proxy
// picks another host); a closed session makes room again.
func TestMaxSessionsRefusesAdmissionWithResourceExhausted(t *testing.T) {
	srv := startServer(t, newJSProvider(t), grpchost.Options{Limits: grpchost.Limits{MaxSessions: 2}})
	first := srv.openSession(t, nil)
	srv.openSession(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := srv.client.OpenSession(ctx, &pb.OpenSessionRequest{})
	if err == nil {
		_, err = stream.Receive()
	}
	wantStatus(t, "third OpenSession", err, connect.CodeResourceExhausted, "code-mode host has too many open sessions")
	if _, err := srv.client.CloseSession(context.Background(), &pb.CloseSessionRequest{SessionId: first.id}); err != nil {
		t.Fatal(err)
	}
	srv.openSession(t, nil)
}
