package v1client_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
	"github.com/codemodehq/codemode/pkg/v1/v1client"
)

// The conformance suite, unchanged, over each V1 transport against a real host process: the
// client drives a host spawned on stdio, a WebSocket host on 127.0.0.1, and the same host over
// dual websockets. Real sockets and processes cannot run in a synctest bubble, so the cases that
// steer time are skipped (codemodetest.FakeTime is for in-process providers).

func processProvider(t *testing.T) codemode.SessionProvider {
	path, args, env := hostCommand("stdio")
	p := v1client.NewProcessProvider(v1client.Command{Path: path, Args: args, Env: env}, v1client.Options{})
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func TestConformanceOverStdio(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	codemodetest.Run(t, processProvider)
}

func TestConformanceOverWebSocket(t *testing.T) {
	url := startWebSocketHost(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		p := v1client.NewWebSocketProvider(url, false, v1client.Options{})
		t.Cleanup(func() { _ = p.Close() })
		return p
	})
}

func TestConformanceOverDualWebSocket(t *testing.T) {
	url := startWebSocketHost(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		p := v1client.NewWebSocketProvider(url, true, v1client.Options{})
		t.Cleanup(func() { _ = p.Close() })
		return p
	})
}
