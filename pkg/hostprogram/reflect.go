package hostprogram

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"connectrpc.com/grpcreflect/v2"
)

// reflectionPaths are the URL path prefixes of gRPC server reflection, v1 and v1alpha: grpcurl
// and buf curl ask v1 first, older tools only v1alpha.
var reflectionPaths = []string{
	"/" + grpcreflect.ReflectV1ServiceName + "/",
	"/" + grpcreflect.ReflectV1AlphaServiceName + "/",
}

// withReflection serves gRPC server reflection (grpc.reflection.v1 and v1alpha) next to rpc, so
// that buf curl, grpcurl and grpcui call the host without its proto files (docs/grpc-by-hand.md).
// It describes the services the gRPC host registers (CodeModeHost) and the reflection services
// themselves. Only the TCP gRPC listener gets it: a host spawned on grpc+stdio:// serves
// CodeModeHost alone: its one client is the Codex that spawned it, which calls nothing else, so
// reflection there would be surface no one can use. It sits behind the guards and the token check,
// so with a token reflection needs it like any RPC.
//
// A reflection stream lasts as long as its client wants (grpcui keeps one open), so the server's
// shutdown ends every reflection stream: otherwise one open stream would hold the drain until its
// bound and make the host exit with "connections were cut".
func (p *Program) withReflection(rpc http.Handler) http.Handler {
	streams := newReflectionStreams()
	described := connect.NewServer(streams.unavailableAtShutdown)
	// The host's service is registered here only so that reflection lists it (its calls
	// still go to rpc, the host's own handler with its limits and compression).
	p.grpc.Register(described)
	grpcreflect.Register(described)
	reflection := http.NewServeMux()
	// A reflection request names a file or a symbol: 1 MiB is ample, and bounds what a caller
	// can make the host buffer.
	connecthttp.Mount(reflection, described, connecthttp.WithReadMaxBytes(1<<20))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isReflection(r.URL.Path) {
			defer streams.endAtShutdown(r)()
			reflection.ServeHTTP(w, r)
			return
		}
		rpc.ServeHTTP(w, r)
	})
}

// reflectionStreams ends the reflection streams of one listener when its server shuts down.
type reflectionStreams struct {
	registered sync.Once
	shutdown   context.Context
	shutDown   context.CancelFunc
}

func newReflectionStreams() *reflectionStreams {
	s := &reflectionStreams{}
	s.shutdown, s.shutDown = context.WithCancel(context.Background())
	return s
}

// endAtShutdown arranges for r's stream to end when the server serving r shuts down, and
// returns the function that cancels the arrangement once the stream has ended. The stream ends
// by closing its request body: the reflection handler is blocked reading the client's next
// request, and the read fails at once.
func (s *reflectionStreams) endAtShutdown(r *http.Request) (stop func() bool) {
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok {
		s.registered.Do(func() { srv.RegisterOnShutdown(s.shutDown) })
	}
	return context.AfterFunc(s.shutdown, func() { _ = r.Body.Close() })
}

// unavailableAtShutdown is a server interceptor: a reflection stream that shutdown ended fails
// with UNAVAILABLE (the client may ask another host, or this one after its restart), not with
// the closed body's protocol error.
func (s *reflectionStreams) unavailableAtShutdown(next connect.ServerFunc) connect.ServerFunc {
	return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
		err := next(ctx, spec, stream)
		if err != nil && s.shutdown.Err() != nil {
			return connect.NewError(connect.CodeUnavailable, "the code-mode host is shutting down")
		}
		return err
	}
}

// isReflection reports whether path names a method of a reflection service.
func isReflection(path string) bool {
	for _, prefix := range reflectionPaths {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}
