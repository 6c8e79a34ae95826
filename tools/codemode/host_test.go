package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestHostRefusesListenURLsItCannotServe(t *testing.T) {
	cases := map[string]string{
		"http://127.0.0.1:1":  "codemode host: unsupported --listen URL `http://127.0.0.1:1`; expected `ws://IP:PORT`, `stdio`, or `stdio://`\n",
		"ws://localhost:9000": "codemode host: invalid WebSocket --listen URL `ws://localhost:9000`; expected `ws://IP:PORT`\n",
	}
	for listen, want := range cases {
		var stdout, stderr bytes.Buffer
		if code := dispatch([]string{"host", "--listen", listen}, strings.NewReader(""), &stdout, &stderr); code != 2 {
			t.Errorf("%s: exit %d, want 2", listen, code)
		}
		if stderr.String() != want {
			t.Errorf("%s: stderr %q, want %q", listen, stderr.String(), want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"host", "--generation", "newest"}, strings.NewReader(""), &stdout, &stderr); code != 2 ||
		stderr.String() != "codemode host: unknown V1 wire generation \"newest\" (known: baseline, host-duration)\n" {
		t.Errorf("unknown generation: exit %d, stderr %q", code, stderr.String())
	}
}
