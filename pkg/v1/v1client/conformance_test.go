package clientv1_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/codemodehq/codemode/pkg/v1/v1client"
	"github.com/codemodehq/codemode/pkg/codemode"
	"github.com/codemodehq/codemode/pkg/codemode/codemodetest"
)

// The conformance suite, unchanged, over each V1 transport against a real host process: the
// client drives a host spawned on stdio, a WebSocket host on 127.0.0.1, and the same host over
// dual websockets. Real sockets and processes cannot run in a synctest bubble, so the cases that
// steer time are skipped (codemodetest.FakeTime is for in-process providers).

func processProvider(t *testing.T) codemode.SessionProvider {
	path, args, env := hostCommand("stdio")
	p := clientv1.NewProcessProvider(clientv1.Command{Path: path, Args: args, Env: env}, clientv1.Options{})
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
		p := clientv1.NewWebSocketProvider(url, false, clientv1.Options{})
		t.Cleanup(func() { _ = p.Close() })
		return p
	})
}

func TestConformanceOverDualWebSocket(t *testing.T) {
	url := startWebSocketHost(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	codemodetest.Run(t, func(t *testing.T) codemode.SessionProvider {
		p := clientv1.NewWebSocketProvider(url, true, clientv1.Options{})
		t.Cleanup(func() { _ = p.Close() })
		return p
	})
}
