package v1client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// The capabilities the client asks for: all optional (it adds dual websockets on a WebSocket), so
// that a host which lacks one still accepts the connection, where a required one it lacks would
// end it with missingRequiredCapability (docs/protocol/v1.md#handshake); the client then does
// without what was not granted.
const (
	dualWebSocketCapability    wirev1.Capability = "dual-websocket-v1"
	resourceLimitsCapability   wirev1.Capability = "session-cell-execution-resource-limits"
	boundedOutputCapability    wirev1.Capability = "bounded-output-v1"
	delegateCapacityCapability wirev1.Capability = "delegate-capacity-4096"
	yieldObservationCapability wirev1.Capability = "yield-observation"
)

// negotiated is the outcome of a successful handshake.
type negotiated struct {
	limits bool
	// boundedOutput and yieldObservation: the host granted them (generation bounded-output).
	boundedOutput, yieldObservation bool
	// bulkToken is set when the host granted dual websockets.
	bulkToken string
}

// handshake sends Codex's hello on conn's control lane and checks the host's answer (docs/protocol/v1.md#handshake).
// dual asks for dual websockets as an optional capability. ctx bounds the exchange: a Conn
// whose read cannot be interrupted is closed when ctx ends.
func handshake(ctx context.Context, conn v1transport.Conn, dual bool) (negotiated, error) {
	optional := wirev1.CapabilitySet{boundedOutputCapability, delegateCapacityCapability, resourceLimitsCapability, yieldObservationCapability}
	if dual {
		optional = append(optional, dualWebSocketCapability)
	}
	hello := wirev1.ClientHello{SupportedVersions: wirev1.SupportedProtocolVersions{1}, RequiredCapabilities: wirev1.CapabilitySet{}, OptionalCapabilities: optional}
	type answer struct {
		msg wirev1.HostToClient
		err error
	}
	done := make(chan answer, 1)
	go func() {
		msg, err := exchange(conn, hello)
		done <- answer{msg, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		_ = conn.Close()
		<-done
		return negotiated{}, errors.New("timed out negotiating with the code-mode host")
	}
	if a.err != nil {
		return negotiated{}, a.err
	}
	return checkHello(a.msg)
}

// exchange writes hello and reads the first answer.
func exchange(conn v1transport.Conn, hello wirev1.ClientHello) (wirev1.HostToClient, error) {
	f, err := v1transport.Encode(hello)
	if err != nil {
		return nil, err
	}
	if err := conn.WriteFrame(wirev1.LaneControl, f); err != nil {
		return nil, fmt.Errorf("failed to write code-mode host hello: %w", err)
	}
	payload, err := conn.ReadFrame(wirev1.LaneControl)
	if errors.Is(err, io.EOF) {
		return nil, errors.New("code-mode host exited during handshake")
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read code-mode host hello: %w", err)
	}
	msg, err := wirev1.DecodeHostToClient(payload)
	if err != nil {
		return nil, fmt.Errorf("failed to read code-mode host hello: failed to decode code-mode IPC frame: %w", err)
	}
	return msg, nil
}

// checkHello accepts connection/ready with version 1 and a pairing token exactly when dual
// websockets were granted.
func checkHello(msg wirev1.HostToClient) (negotiated, error) {
	switch m := msg.(type) {
	case wirev1.HostHello:
		if m.SelectedVersion != 1 {
			return negotiated{}, fmt.Errorf("code-mode host selected unsupported protocol version %d", m.SelectedVersion)
		}
		dual := slices.Contains(m.Capabilities, dualWebSocketCapability)
		switch {
		case dual && m.BulkConnectionToken == nil:
			return negotiated{}, errors.New("code-mode host advertised dual websockets without a pairing token")
		case !dual && m.BulkConnectionToken != nil:
			return negotiated{}, errors.New("code-mode host returned an unexpected bulk pairing token")
		}
		n := negotiated{
			limits:           slices.Contains(m.Capabilities, resourceLimitsCapability),
			boundedOutput:    slices.Contains(m.Capabilities, boundedOutputCapability),
			yieldObservation: slices.Contains(m.Capabilities, yieldObservationCapability),
		}
		if dual {
			n.bulkToken = *m.BulkConnectionToken
		}
		return n, nil
	case wirev1.HandshakeRejected:
		return negotiated{}, fmt.Errorf("code-mode host rejected the handshake: %s", wirev1.Marshal(m.Reason))
	}
	return negotiated{}, fmt.Errorf("code-mode host returned an invalid handshake response: %s", wirev1.Marshal(msg))
}
