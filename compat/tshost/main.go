// Command tshost serves codex.code_mode.v1.CodeModeHost (pkg/grpc/grpchost on the in-process QuickJS
// runtime) for the TypeScript SDK's routing tests (pkg/tssdk/test); the SDK's other integration
// tests run the real host binary, and the end-to-end routing test of the Go client runs real hosts
// behind real HAProxy (services/codemode-host). It listens on -listen (default 127.0.0.1:0: a free port), prints "http://ADDR" on
// stdout once it accepts connections, and runs until its stdin reaches EOF or it receives
// SIGTERM or SIGINT, then shuts its sessions down and exits 0. Logs go to stderr.
//
// A test restarts the host by ending one process and starting the next with -listen set to the
// address the first one printed.
//
// With -hosts N (N ≥ 2) the listener serves N hosts (routes host0…hostN-1) behind a small sticky
// front, for the routing tests: a request goes to the host its x-code-mode-route names, anything
// else to the current default host (host0 first). Lines on stdin control the front, each answered
// by a line on stdout: "out I" takes host I out of the rotation (as a proxy does with a failed
// host; the next host becomes the default) and answers "ok"; "refuse CODE…" makes the front
// refuse the next OpenSession attempts with these gRPC status codes and answers "ok"; "opens"
// answers the number of OpenSession attempts so far.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/codemodehq/codemode/pkg/grpc/grpchost"
	"github.com/codemodehq/codemode/pkg/jsruntime"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on")
	hosts := flag.Int("hosts", 1, "hosts behind a sticky front (≥ 2 enables the front and its stdin commands)")
	flag.Parse()
	if err := run(*listen, *hosts); err != nil {
		fmt.Fprintln(os.Stderr, "tshost:", err)
		os.Exit(1)
	}
}

func run(listen string, n int) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// The parent ends the host by closing stdin (or by dying, which closes it too).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	provider, err := jsruntime.NewProvider(jsruntime.Options{})
	if err != nil {
		return err
	}
	defer provider.Close()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ln, err := grpchost.Listen(ctx, listen)
	if err != nil {
		return err
	}
	if n < 2 {
		go func() {
			sc := bufio.NewScanner(os.Stdin)
			for sc.Scan() {
			}
			cancel()
		}()
		host := grpchost.New(provider, grpchost.Options{Logger: log})
		fmt.Printf("http://%s\n", ln.Addr())
		return host.Serve(ctx, ln)
	}
	f := &front{out: map[int]bool{}}
	for i := range n {
		h := grpchost.New(provider, grpchost.Options{Logger: log, Route: "host" + strconv.Itoa(i)})
		defer h.Close(context.WithoutCancel(ctx))
		f.hosts = append(f.hosts, h)
		f.handlers = append(f.handlers, h.Handler())
	}
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println(f.command(sc.Text()))
		}
		cancel()
	}()
	srv := grpchost.NewHTTPServer(f)
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Printf("http://%s\n", ln.Addr())
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// front routes requests to the host their route names, the rest to the current default.
type front struct {
	hosts    []*grpchost.Host
	handlers []http.Handler

	mu       sync.Mutex
	current  int
	out      map[int]bool
	refusals []string
	opens    int
}

// ServeHTTP routes one request.
func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route := r.Header.Get("X-Code-Mode-Route")
	f.mu.Lock()
	if path.Base(r.URL.Path) == "OpenSession" {
		f.opens++
		if len(f.refusals) > 0 {
			code := f.refusals[0]
			f.refusals = f.refusals[1:]
			f.mu.Unlock()
			refuse(w, r, code)
			return
		}
	}
	target := f.current
	for i, h := range f.hosts {
		if route != "" && route == h.Route() && !f.out[i] {
			target = i
		}
	}
	f.mu.Unlock()
	f.handlers[target].ServeHTTP(w, r)
}

// refuse answers a request with a gRPC status as a proxy would: trailers-only gRPC or gRPC-Web
// (in the headers), or a Connect error (the end of a streaming response's body).
func refuse(w http.ResponseWriter, r *http.Request, code string) {
	ct := r.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/connect+") {
		names := map[string]string{"5": "not_found", "8": "resource_exhausted", "13": "internal", "14": "unavailable"}
		body := fmt.Sprintf(`{"error":{"code":%q,"message":"refused by the front"}}`, names[code])
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte{2, 0, 0, 0, byte(len(body))})
		_, _ = w.Write([]byte(body))
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Grpc-Status", code)
	w.Header().Set("Grpc-Message", "refused by the front")
	w.WriteHeader(http.StatusOK)
}

// command runs one stdin command and returns its answer.
func (f *front) command(line string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	fields := strings.Fields(line)
	switch {
	case len(fields) == 2 && fields[0] == "out":
		i, err := strconv.Atoi(fields[1])
		if err != nil || i < 0 || i >= len(f.hosts) {
			return "error: no host " + fields[1]
		}
		f.out[i] = true
		f.current = (i + 1) % len(f.hosts)
		return "ok"
	case len(fields) >= 1 && fields[0] == "refuse":
		f.refusals = append(f.refusals, fields[1:]...)
		return "ok"
	case len(fields) == 1 && fields[0] == "opens":
		return strconv.Itoa(f.opens)
	}
	return "error: unknown command " + line
}
