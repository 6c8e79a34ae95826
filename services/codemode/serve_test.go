package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// serveWait bounds waits for what must happen; it never asserts speed.
const serveWait = 5 * time.Minute

// bannerURL finds the gRPC and WebSocket addresses in the banner of `codemode serve`.
var bannerURL = regexp.MustCompile(`^  (gRPC, gRPC-Web, Connect|Protocol V1 \(WebSocket\)|playground:) +((?:http|ws)://127\.0\.0\.1:[0-9]+/?) `)

// TestServeRunsCellsOverBothProtocolsAndStopsOnSIGTERM runs `codemode serve` with a one-tool
// manifest, reads the two addresses from its banner, runs a cell over gRPC and one over the V1
// WebSocket (each calling a tool of the manifest, which runs in the serving process), then stops
// it with SIGTERM and expects exit 0.
func TestServeRunsCellsOverBothProtocolsAndStopsOnSIGTERM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), serveWait)
	defer cancel()
	manifest := hostManifestFile(t)
	out, banner := io.Pipe()
	signals := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		code := serveWith([]string{"--tools", manifest}, strings.NewReader(""), banner, &stderr, signals)
		banner.Close()
		exited <- code
	}()
	urls := map[string]string{}
	lines := bufio.NewScanner(out)
	for len(urls) < 3 && lines.Scan() {
		if m := bannerURL.FindStringSubmatch(lines.Text()); m != nil {
			urls[m[1]] = m[2]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	grpcURL, wsURL := urls["gRPC, gRPC-Web, Connect"], urls["Protocol V1 (WebSocket)"]
	if grpcURL == "" || wsURL == "" {
		t.Fatalf("banner addresses %v; stderr %s", urls, stderr.String())
	}
	if got := urls["playground:"]; got != grpcURL+"/" {
		t.Errorf("playground %q in the banner, want %q (the gRPC listener's /)", got, grpcURL+"/")
	} else if resp, err := http.Get(got); err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET %s: %v, %v", got, err, resp)
	} else {
		resp.Body.Close()
	}
	g, err := grpcclient.New(grpcURL, grpcclient.Options{Protocol: grpcclient.ProtocolConnect})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ws := v1client.NewWebSocketProvider(wsURL, false, v1client.Options{})
	defer ws.Close()
	for name, p := range map[string]codemode.SessionProvider{"Connect": g, "WebSocket": ws} {
		s, err := p.CreateSession(ctx, codemode.NoopDelegate{}, codemode.SessionCellExecutionLimits{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c, err := s.Execute(ctx, codemode.ExecuteRequest{ToolCallID: "call-1", Source: `text((await tools.host_echo({word: "served"})).word)`})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := c.InitialResponse(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(r.ContentItems) != 1 || r.ContentItems[0] != (codemode.InputText{Text: "served"}) {
			t.Fatalf("%s: %+v (error %v)", name, r.ContentItems, r.ErrorText)
		}
		if err := s.Shutdown(ctx); err != nil {
			t.Fatalf("%s: shutdown: %v", name, err)
		}
	}
	signals <- syscall.SIGTERM
	select {
	case code := <-exited:
		if code != exitOK {
			t.Fatalf("exit %d after SIGTERM, want 0; stderr %s", code, stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("codemode serve did not stop after SIGTERM")
	}
}

// hostManifestFile writes a manifest with one tool, `host_echo`, which returns its input (cat).
func hostManifestFile(t *testing.T) string {
	t.Helper()
	path := t.TempDir() + "/tools.json"
	manifest := `{"tools": [{"name": "host_echo", "description": "Returns its input.", "command": ["cat"]}]}`
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
