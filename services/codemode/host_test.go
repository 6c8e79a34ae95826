package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestHostRefusesListenURLsItCannotServe(t *testing.T) {
	cases := map[string]string{
		"http://127.0.0.1:1":  "unsupported --listen URL `http://127.0.0.1:1`; expected `grpc://IP:PORT`, `grpc+stdio://`, `stdio`, `stdio://` or `ws://IP:PORT`",
		"ws://localhost:9000": "invalid WebSocket --listen URL `ws://localhost:9000`; expected `ws://IP:PORT`",
		"grpc://[::1]":        "invalid gRPC --listen URL `grpc://[::1]`; expected `grpc://IP:PORT`",
	}
	for listen, want := range cases {
		var stdout, stderr bytes.Buffer
		if code := dispatch([]string{"host", "--listen", listen}, strings.NewReader(""), &stdout, &stderr); code != 2 {
			t.Errorf("%s: exit %d, want 2", listen, code)
		}
		if !strings.HasPrefix(stderr.String(), "codemode host: ") || !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "\nusage: codemode host ") || stdout.Len() != 0 {
			t.Errorf("%s: stdout %q, stderr %q, want the problem %q and the usage", listen, stdout.String(), stderr.String(), want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"host", "--generation", "newest"}, strings.NewReader(""), &stdout, &stderr); code != 2 ||
		stderr.String() != "codemode host: unknown V1 wire generation \"newest\" (known: baseline, host-duration, bounded-output)\n" {
		t.Errorf("unknown generation: exit %d, stderr %q", code, stderr.String())
	}
}

func TestHostRefusesANonLoopbackAddressWithoutAToken(t *testing.T) {
	for _, listen := range []string{"ws://0.0.0.0:0", "grpc://192.0.2.1:0", "grpc://[::]:0"} {
		var stdout, stderr bytes.Buffer
		code := dispatch([]string{"host", "--listen", listen}, strings.NewReader(""), &stdout, &stderr)
		want := "codemode host: --listen " + listen + " is not a loopback address: a host reachable from the network needs a bearer token (--token or $CODEMODE_HOST_TOKEN)\n"
		if code != 2 || stderr.String() != want {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", listen, code, stderr.String(), want)
		}
	}
}

func TestServeRefusesWrongInvocations(t *testing.T) {
	cases := map[string][]string{
		"unexpected argument \"extra\"":                         {"extra"},
		"--grpc-port must be a port number from 0 to 65535":     {"--grpc-port", "70000"},
		"--log-level must be debug, info, warn or error, not x": {"--log-level", "x"},
		"flag provided but not defined: --listen":               {"--listen", "stdio"},
	}
	for want, args := range cases {
		var stdout, stderr bytes.Buffer
		code := dispatch(append([]string{"serve"}, args...), strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.HasPrefix(stderr.String(), "codemode serve: ") || !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "usage: codemode serve ") || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want 2 and %q with the usage", args, code, stdout.String(), stderr.String(), want)
		}
	}
}
