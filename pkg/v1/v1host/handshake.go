package v1host

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/codemodehq/codemode/gen/go/wirev1"
	"github.com/codemodehq/codemode/pkg/v1/v1transport"
)

// handshake is what a successful negotiation granted.
type handshake struct {
	limits bool
	// maxDelegates bounds the connection's pending delegate calls.
	maxDelegates int
	// pairing is set when dual-websocket-v1 was granted: the bulk socket arrives through it.
	pairing *pairing
}

// dualOffer reserves a bulk pairing slot for a connection that asks for dual websockets; nil
// (stdio) or a false result (every slot taken) means the capability is not granted.
type dualOffer func() (*pairing, bool)

// negotiate runs the host side of the handshake on conn's control lane (docs/protocol/v1.md#handshake). It returns
// ok=false when the connection must end without serving: the client ended before any frame (no
// reply) or the hello was rejected (after the rejection was written). An undecodable first frame
// is an error, with no reply.
func negotiate(conn v1transport.Conn, offer dualOffer, g wirev1.Generation) (hs handshake, ok bool, err error) {
	payload, err := conn.ReadFrame(wirev1.LaneControl)
	if errors.Is(err, io.EOF) {
		return hs, false, nil
	}
	if err != nil {
		return hs, false, fmt.Errorf("failed to read code-mode client hello: %w", err)
	}
	msg, err := wirev1.DecodeClientToHost(payload)
	if err != nil {
		return hs, false, fmt.Errorf("failed to read code-mode client hello: failed to decode code-mode IPC frame: %w", err)
	}
	hello, isHello := msg.(wirev1.ClientHello)
	if !isHello {
		return hs, false, reject(conn, wirev1.InvalidHello{Message: "first message must be connection/hello"})
	}
	if !slices.Contains(hello.SupportedVersions, 1) {
		return hs, false, reject(conn, wirev1.NoCompatibleVersion{SupportedVersions: wirev1.SupportedProtocolVersions{1}})
	}
	granted, hs := grant(hello, offer, g)
	if missing, ok := firstMissing(hello.RequiredCapabilities, granted); ok {
		hs.pairing.release()
		return handshake{}, false, reject(conn, wirev1.MissingRequiredCapability{Capability: missing})
	}
	ready := wirev1.HostHello{SelectedVersion: 1, Capabilities: granted}
	if hs.pairing != nil {
		token := hs.pairing.token
		ready.BulkConnectionToken = &token
	}
	if err := writeHandshake(conn, ready); err != nil {
		hs.pairing.release()
		return handshake{}, false, fmt.Errorf("failed to write code-mode host hello: %w", err)
	}
	return hs, true, nil
}

// grant decides the capabilities: dual websockets when requested and a pairing slot is free,
// resource limits when requested, and from generation bounded-output on each of its three when
// requested. Unknown optional capabilities are ignored, not echoed. The set is sorted
// (docs/protocol/v1.md#handshake), so connection/ready is the same bytes whatever order the hello
// listed them in.
func grant(hello wirev1.ClientHello, offer dualOffer, g wirev1.Generation) (wirev1.CapabilitySet, handshake) {
	requested := func(c wirev1.Capability) bool {
		return slices.Contains(hello.RequiredCapabilities, c) || slices.Contains(hello.OptionalCapabilities, c)
	}
	granted := wirev1.CapabilitySet{}
	hs := handshake{maxDelegates: MaxPendingDelegateCalls}
	if g >= wirev1.GenerationBoundedOutput {
		for _, c := range []wirev1.Capability{BoundedOutputCapability, DelegateCapacityCapability, YieldObservationCapability} {
			if requested(c) {
				granted = append(granted, c)
			}
		}
		if requested(DelegateCapacityCapability) {
			hs.maxDelegates = MaxPendingDelegateCallsGranted
		}
	}
	if requested(DualWebSocketCapability) && offer != nil {
		if p, ok := offer(); ok {
			granted = append(granted, DualWebSocketCapability)
			hs.pairing = p
		}
	}
	if requested(ResourceLimitsCapability) {
		granted = append(granted, ResourceLimitsCapability)
		hs.limits = true
	}
	slices.Sort(granted)
	return granted, hs
}

// firstMissing returns the first required capability, in sorted order, that was not granted.
func firstMissing(required, granted wirev1.CapabilitySet) (wirev1.Capability, bool) {
	sorted := slices.Clone(required)
	slices.Sort(sorted)
	for _, c := range sorted {
		if !slices.Contains(granted, c) {
			return c, true
		}
	}
	return "", false
}

// reject writes connection/rejected; the connection then ends.
func reject(conn v1transport.Conn, reason wirev1.HandshakeRejectReason) error {
	if err := writeHandshake(conn, wirev1.HandshakeRejected{Reason: reason}); err != nil {
		return fmt.Errorf("failed to reject the code-mode client hello: %w", err)
	}
	return nil
}

func writeHandshake(conn v1transport.Conn, m wirev1.HostToClient) error {
	f, err := v1transport.Encode(m)
	if err != nil {
		return err
	}
	return conn.WriteFrame(wirev1.LaneControl, f)
}
