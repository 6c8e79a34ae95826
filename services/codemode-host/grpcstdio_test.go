package main_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/grpc/grpcclient"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// TestGRPCStdioSpeaksFirstAndExitsZeroWhenStdinEnds: with --listen grpc+stdio:// the host is an
// HTTP/2 server with prior knowledge on its standard streams, what Codex 0.169's client expects
// of a host it spawns (docs/protocol/grpc.md#spawned-hosts): its SETTINGS (1 MiB stream window,
// 16 KiB frames and header lists) come before it has read a byte, the client's preface is
// answered with a WINDOW_UPDATE raising the connection window to 1 MiB and a SETTINGS ack,
// nothing but HTTP/2 reaches stdout (the log goes to stderr), and the end of stdin ends the
// process with status 0.
func TestGRPCStdioSpeaksFirstAndExitsZeroWhenStdinEnds(t *testing.T) {
	h := startHost(t, nil, "--listen", "grpc+stdio://")
	fr := http2.NewFramer(h.stdin, h.stdout)
	f, err := fr.ReadFrame()
	if err != nil {
		t.Fatalf("reading the host's first frame before writing anything: %v", err)
	}
	settings, ok := f.(*http2.SettingsFrame)
	if !ok || settings.IsAck() {
		t.Fatalf("first frame %v, want the server's SETTINGS", f)
	}
	want := map[http2.SettingID]uint32{
		http2.SettingInitialWindowSize: 1 << 20,
		http2.SettingMaxFrameSize:      16 << 10,
		http2.SettingMaxHeaderListSize: 16 << 10,
	}
	for id, v := range want {
		if got, ok := settings.Value(id); !ok || got != v {
			t.Errorf("SETTINGS %v = %d (sent: %v), want %d", id, got, ok, v)
		}
	}
	if _, err := h.stdin.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	var acked, raised bool
	for !acked || !raised {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("reading the answer to the preface: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			acked = acked || f.IsAck()
		case *http2.WindowUpdateFrame:
			if f.StreamID == 0 && f.Increment == 1<<20-65535 {
				raised = true
			}
		default:
			t.Fatalf("unexpected frame %v", f)
		}
	}
	_ = h.stdin.Close()
	if code := h.exitCode(); code != 0 {
		t.Fatalf("exit status %d when stdin ended, want 0", code)
	}
	if !strings.Contains(h.stderrText(), "listening") || !strings.Contains(h.stderrText(), "listen=grpc+stdio://") {
		t.Errorf("the log did not reach stderr:\n%s", h.stderrText())
	}
}

// TestGRPCStdioClientVanishingMidCallClosesEveryCellOnce: the gRPC client on the host's
// standard streams goes away (both pipes closed) while its cell waits for two tool calls, and a
// V1 WebSocket client of the same process has a cell in the same state. The host drains as when
// stdin ends: the vanished client's cell is closed once (the host's debug log), the WebSocket
// client sees its cell terminated and closed once, and the process exits 0.
func TestGRPCStdioClientVanishingMidCallClosesEveryCellOnce(t *testing.T) {
	h := startHost(t, nil, "--listen", "grpc+stdio://", "--listen", "ws://127.0.0.1:0", "--log-level", "debug", "--drain-timeout", "10m")
	ws := h.stderrLineWithPrefix("ws://")
	dialled := false
	stdioConn := &pipeConn{ReadCloser: h.rawStdout, WriteCloser: h.stdin}
	gp := grpcclient.NewOverConn(func() (net.Conn, error) {
		if dialled {
			return nil, net.ErrClosed
		}
		dialled = true
		return stdioConn, nil
	}, grpcclient.Options{})
	v1 := v1client.NewWebSocketProvider(ws, false, v1client.Options{})
	defer v1.Close()
	vanishing := startBlockedCell(t, "gRPC on stdio", gp)
	staying := startBlockedCell(t, "V1 WebSocket", v1)

	_ = stdioConn.Close()
	select {
	case <-staying.delegate.gotAll:
	case <-time.After(waitLimit):
		t.Fatal("the WebSocket client's cell was not reported closed")
	}
	if code := h.exitCode(); code != 0 {
		t.Fatalf("exit status %d after the stdio client vanished, want 0", code)
	}
	res := <-staying.initial
	if res.Err != nil || res.Response.Kind != codemode.Terminated {
		t.Errorf("WebSocket initial response %+v, %v; want Terminated", res.Response, res.Err)
	}
	_ = v1.Close()
	if n := staying.delegate.closures(staying.cell.CellID); n != 1 {
		t.Errorf("the WebSocket cell was reported closed %d times, want once", n)
	}
	closed := strings.Count(h.stderrText(), `msg="code-mode cell closed"`)
	if closed != 1 || !strings.Contains(h.stderrText(), "cell_id="+string(vanishing.cell.CellID)) {
		t.Errorf("the host closed %d gRPC cells, want the vanished client's one (cell %s) once:\n%s", closed, vanishing.cell.CellID, h.stderrText())
	}
}
