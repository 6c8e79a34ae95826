package grpcconv

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/codemodehq/codemode/pkg/serdejson"
)

// checkJSON parses data as serde_json::from_slice does and returns its error text on failure, so
// a refusal carries the pinned text ("expected value at line 1 column 1") that peers and tests
// match (docs/protocol/grpc.md#identifiers-and-validation).
func checkJSON(data []byte) error {
	_, err := serdejson.Parse(data)
	return err
}

// compactJSON re-encodes a domain JSON value compactly, as serde_json::to_vec does before a value
// goes on the wire. An invalid value fails with what names it.
func compactJSON(raw json.RawMessage, what string) ([]byte, error) {
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, fmt.Errorf("failed to encode code-mode %s: %w", what, err)
	}
	return out.Bytes(), nil
}
