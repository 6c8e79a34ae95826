package grpchost_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"github.com/google/uuid"

	pb "github.com/codemodehq/codemode/gen/go/pb/codex/code_mode/v1"
	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
)

// Codex's code-mode-host/tests/grpc_tcp.rs and transport_tests.rs (gRPC listener).

// http1 sends a raw HTTP/1.1 request and returns the response's status line.
func http1(t *testing.T, url string, request []byte) string {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(testTimeout)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(request); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimRight(line, "\r\n")
}

func TestTcpListenerServesHttp1Healthz(t *testing.T) {
	srv := startServer(t, blockingProvider{}, grpchost.Options{})
	got := http1(t, srv.url, []byte("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
	if got != "HTTP/1.1 200 OK" {
		t.Fatalf("status line %q", got)
	}
}

func TestTcpListenerRejectsHttp1GrpcRequests(t *testing.T) {
	srv := startServer(t, blockingProvider{}, grpchost.Options{})
	req := "POST /codex.code_mode.v1.CodeModeHost/OpenSession HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/grpc\r\n" +
		"Content-Length: 5\r\nConnection: close\r\n\r\n\x00\x00\x00\x00\x00"
	if got := http1(t, srv.url, []byte(req)); got != "HTTP/1.1 505 HTTP Version Not Supported" {
		t.Fatalf("status line %q", got)
	}
	// The service's path in no browser protocol is gRPC too; an unknown path is not found.
	plain := "POST /codex.code_mode.v1.CodeModeHost/OpenSession HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	if got := http1(t, srv.url, []byte(plain)); got != "HTTP/1.1 505 HTTP Version Not Supported" {
		t.Fatalf("the service's path without a content type: %q", got)
	}
	if got := http1(t, srv.url, []byte("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")); got != "HTTP/1.1 404 Not Found" {
		t.Fatalf("an unknown path over HTTP/1: %q", got)
	}
}

func TestTcpListenerServesHttp2Healthz(t *testing.T) {
	srv := startServer(t, blockingProvider{}, grpchost.Options{})
	resp, err := h2cClient(t).Get(srv.url + grpchost.HealthPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Fatalf("%s %d %q", resp.Proto, resp.StatusCode, body)
	}
}

func TestTcpListenerOpensAGrpcSession(t *testing.T) {
	srv := startServer(t, blockingProvider{}, grpchost.Options{})
	l := srv.openSession(t, nil)
	if l.id == "" {
		t.Fatal("empty session ID")
	}
}

// Browsers reach the host with Connect and gRPC-Web over HTTP/1.1: unary and server streams work
// there, with the same handler.
func TestBrowserProtocolsAreServedOverHttp1(t *testing.T) {
	srv := startServer(t, blockingProvider{}, grpchost.Options{})
	http1Client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(http1Client.CloseIdleConnections)
	for name, opts := range map[string][]connecthttp.Option{"connect": nil, "grpc-web": {connecthttp.WithGRPCWeb()}, "connect+json": {connecthttp.WithProtoJSON()}} {
		client := codemodeClient(http1Client, srv.url, opts...)
		stream, err := client.OpenSession(context.Background(), &pb.OpenSessionRequest{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		first, err := stream.Receive()
		if err != nil || first.GetOpened().GetSessionId() == "" {
			t.Fatalf("%s: first event %v, %v", name, first, err)
		}
		if _, err := client.CloseSession(context.Background(), &pb.CloseSessionRequest{SessionId: first.GetOpened().GetSessionId()}); err != nil {
			t.Fatalf("%s: CloseSession over HTTP/1.1: %v", name, err)
		}
		stream.Close()
	}
}

func TestGrpcListenerDisablesNagle(t *testing.T) {
	ln, err := grpchost.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed := make(chan net.Conn, 1)
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			dialed <- c
		}
	}()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	defer (<-dialed).Close()
	raw, err := conn.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var noDelay int
	var sockErr error
	if err := raw.Control(func(fd uintptr) {
		noDelay, sockErr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
	}); err != nil || sockErr != nil {
		t.Fatal(err, sockErr)
	}
	if noDelay == 0 {
		t.Fatal("TCP_NODELAY is off on an accepted connection")
	}
}

func TestDroppingAGrpcLeaseRetiresItsServerSession(t *testing.T) {
	srv := startServer(t, blockingProvider{}, grpchost.Options{})
	l := srv.openSession(t, nil)
	l.cancel()
	for {
		// The lease's end reaches the host on its own stream; until then the session still
		// answers. Each attempt waits for the host's answer, never for time.
		_, err := srv.client.AcknowledgeNotification(context.Background(), &pb.AcknowledgeNotificationRequest{SessionId: l.id, NotificationId: uuid.NewString()})
		switch connect.CodeOf(err) {
		case connect.CodeNotFound:
			wantStatus(t, "retired session", err, connect.CodeNotFound, "unknown code-mode session "+l.id)
			return
		case connect.CodeUnknown:
			if err != nil {
				t.Fatalf("unexpected status after the lease drop: %v", err)
			}
		default:
			t.Fatalf("unexpected status after the lease drop: %v", err)
		}
	}
}
