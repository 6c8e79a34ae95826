package execserver

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// decodeBase64 decodes standard padded base64 and words a failure as Rust's base64 crate does
// (Codex's exec-server), since the text reaches the client: "Invalid symbol 33, offset 0.",
// "Invalid last symbol 108, offset 2.", "Invalid padding".
func decodeBase64(s string) ([]byte, error) {
	data, err := base64.StdEncoding.Strict().DecodeString(s)
	if err == nil {
		return data, nil
	}
	return nil, fmt.Errorf("%s", base64Text(s))
}

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// base64Text finds the first fault of s in the order the base64 crate checks: a byte outside the
// alphabet (or '=' before the final quantum's padding), then the length and padding, then
// non-zero trailing bits in the last symbol.
func base64Text(s string) string {
	body := strings.TrimRight(s, "=")
	pad := len(s) - len(body)
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base64Alphabet, body[i]) < 0 {
			return fmt.Sprintf("Invalid symbol %d, offset %d.", body[i], i)
		}
	}
	rem := len(body) % 4
	if rem == 1 && pad == 0 {
		return fmt.Sprintf("Invalid input length: %d", len(s))
	}
	want := (4 - rem) % 4
	if rem == 1 {
		want = 0 // no padding completes a single symbol
	}
	if pad > want {
		// Padding past the quantum: the crate blames the first '='.
		return fmt.Sprintf("Invalid symbol %d, offset %d.", '=', len(body))
	}
	if pad < want {
		return "Invalid padding"
	}
	if rem != 0 {
		last := strings.IndexByte(base64Alphabet, body[len(body)-1])
		mask := 0x0f // two symbols: the last one's low 4 bits are not data
		if rem == 3 {
			mask = 0x03
		}
		if last&mask != 0 {
			return fmt.Sprintf("Invalid last symbol %d, offset %d.", body[len(body)-1], len(body)-1)
		}
	}
	return "Invalid padding"
}
