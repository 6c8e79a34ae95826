package grpcconv

import (
	"fmt"

	"github.com/google/uuid"
)

// MaxIdentifierBytes bounds every identifier of the protocol (Codex's grpc::MAX_IDENTIFIER_BYTES,
// docs/protocol/grpc.md#identifiers-and-validation).
const MaxIdentifierBytes = 256

// MaxMessageBytes is the gRPC message limit of both peers, in each direction (Codex's
// host::MAX_FRAME_BYTES, 64 MiB; docs/protocol/grpc.md#messages).
const MaxMessageBytes = 64 << 20

// CheckIdentifier is the host's rule for an identifier a client sent: not empty and at most
// MaxIdentifierBytes. field names it in the error ("execution ID", "wait ID", …).
func CheckIdentifier(value, field string) error {
	if value == "" {
		return fmt.Errorf("code-mode %s must not be empty", field)
	}
	return CheckBounded(value, MaxIdentifierBytes, field)
}

// CheckBounded is the host's rule for a string that may be empty but not longer than maximum
// bytes.
func CheckBounded(value string, maximum int, field string) error {
	if len(value) > maximum {
		return fmt.Errorf("code-mode %s exceeds %d bytes", field, maximum)
	}
	return nil
}

// CheckUUID is the host's rule for a host-generated identifier a client sends back: an identifier
// that parses as a UUID. The parsed UUID is returned, since Codex reports and compares the parsed
// form.
func CheckUUID(value, field string) (uuid.UUID, error) {
	if err := CheckIdentifier(value, field); err != nil {
		return uuid.UUID{}, err
	}
	id, err := uuid.Parse(value)
	if err != nil {
		return uuid.UUID{}, fmt.Errorf("code-mode %s must be a UUID", field)
	}
	return id, nil
}

// CheckHostIdentifier is the client's rule for an identifier the host returned.
func CheckHostIdentifier(value, field string) error {
	if value == "" {
		return fmt.Errorf("gRPC code-mode host returned an empty %s", field)
	}
	if len(value) > MaxIdentifierBytes {
		return fmt.Errorf("gRPC code-mode host returned %s exceeding %d bytes", field, MaxIdentifierBytes)
	}
	return nil
}

// ParseCallbackUUID is the client's rule for the ID of a callback the host sent (a tool
// invocation, a cancellation, a notification): it must parse as a UUID. Codex's client says only
// that, also for an empty or oversized ID.
func ParseCallbackUUID(value, field string) (uuid.UUID, error) {
	id, err := uuid.Parse(value)
	if err != nil {
		return uuid.UUID{}, fmt.Errorf("code-mode %s must be a UUID", field)
	}
	return id, nil
}
