package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// codexAsks are the capabilities Codex 0.169 and later ask a host for in their V1 hello, all
// optional (docs/codex.md): server-side output truncation, 4,096 pending tool calls per
// session, per-session cell limits and yield observation. Over gRPC the same features travel as
// OpenSession fields, which every gRPC host accepts or refuses outright.
var codexAsks = []string{"bounded-output-v1", "delegate-capacity-4096", "session-cell-execution-resource-limits", "yield-observation"}

// hostGrants spawns host in Codex's way when code_mode_host_grpc is off (no arguments: V1 on
// stdio, docs/protocol/grpc.md#spawned-hosts), sends Codex's hello and returns the capabilities
// the host's connection/ready grants: the grants Codex itself will get
// (docs/protocol/v1.md#handshake). limit bounds the exchange.
func hostGrants(host string, limit time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, host)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		_ = stdin.Close() // the host exits when its stdin ends
		_ = cmd.Wait()
	}()
	hello, err := json.Marshal(map[string]any{"type": "connection/hello", "supportedVersions": []int{1},
		"requiredCapabilities": []string{}, "optionalCapabilities": codexAsks})
	if err != nil {
		return nil, err
	}
	if err := writeV1Frame(stdin, hello); err != nil {
		return nil, fmt.Errorf("sending the hello: %w", err)
	}
	frame, err := readV1Frame(stdout)
	if err != nil {
		return nil, fmt.Errorf("reading the host's answer to the hello: %w (its stderr: %s)", err, strings.TrimSpace(stderr.String()))
	}
	var ready struct {
		Type         string   `json:"type"`
		Capabilities []string `json:"capabilities"`
	}
	if err := json.Unmarshal(frame, &ready); err != nil || ready.Type != "connection/ready" {
		return nil, fmt.Errorf("the host answered the hello with %s", frame)
	}
	return ready.Capabilities, nil
}

// writeV1Frame writes one V1 frame: the payload's length as 4 bytes little-endian, then it.
func writeV1Frame(w io.Writer, payload []byte) error {
	frame := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	_, err := w.Write(append(frame, payload...))
	return err
}

// maxReadyFrame bounds the frame readV1Frame accepts: a connection/ready is a few hundred bytes.
const maxReadyFrame = 1 << 16

// readV1Frame reads one V1 frame's payload.
func readV1Frame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(size[:])
	if n > maxReadyFrame {
		return nil, fmt.Errorf("a frame of %d bytes, not a V1 connection/ready (is this a code-mode host?)", n)
	}
	payload := make([]byte, n)
	_, err := io.ReadFull(r, payload)
	return payload, err
}

// missingFrom returns the capabilities of want that granted lacks.
func missingFrom(want, granted []string) []string {
	var out []string
	for _, c := range want {
		if !slices.Contains(granted, c) {
			out = append(out, c)
		}
	}
	return out
}
