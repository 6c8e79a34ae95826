// Package frame implements the V1 host protocol framing: a 4-byte little-endian payload length
// followed by the payload (one JSON document). It serves byte streams (stdio) and message
// transports (one complete frame per binary WebSocket message). Error texts match Codex's
// host/codec.rs so they can surface unchanged.
package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// MaxFrameBytes is the largest payload either side accepts or sends (64 MiB).
const MaxFrameBytes = 64 * 1024 * 1024

// HeaderBytes is the size of the length prefix.
const HeaderBytes = 4

// ErrInvalidData marks malformed or oversized frames (Rust io::ErrorKind::InvalidData). Test
// with errors.Is; partial frames at the end of a stream wrap io.ErrUnexpectedEOF instead.
var ErrInvalidData = errors.New("invalid data")

// dataError carries a Codex error text and classifies it as ErrInvalidData.
type dataError struct{ msg string }

func (e *dataError) Error() string { return e.msg }

func (e *dataError) Is(target error) bool { return target == ErrInvalidData }

func invalidData(format string, args ...any) error {
	return &dataError{msg: fmt.Sprintf(format, args...)}
}

func tooLarge(n uint64) error {
	return invalidData("code-mode IPC frame length %d exceeds %d bytes", n, MaxFrameBytes)
}

// ErrTextMessage is the error a message transport returns for a text (non-binary) WebSocket
// message; every V1 WebSocket message must be one binary frame.
var ErrTextMessage error = &dataError{msg: "code-mode websocket messages must be binary framed messages"}

// Append appends one frame holding payload to dst. It fails locally, before anything is sent,
// when the payload exceeds MaxFrameBytes.
func Append(dst, payload []byte) ([]byte, error) {
	if uint64(len(payload)) > math.MaxUint32 {
		return dst, invalidData("code-mode IPC frame length exceeds u32")
	}
	if len(payload) > MaxFrameBytes {
		return dst, tooLarge(uint64(len(payload)))
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...), nil
}

// Decode returns the payload of a complete frame received as one transport message. The message
// must hold exactly the declared number of bytes after the prefix.
func Decode(message []byte) ([]byte, error) {
	if len(message) < HeaderBytes {
		return nil, invalidData("code-mode IPC frame is missing its length prefix")
	}
	n := binary.LittleEndian.Uint32(message)
	if n > MaxFrameBytes {
		return nil, tooLarge(uint64(n))
	}
	if got := len(message) - HeaderBytes; uint64(got) != uint64(n) {
		return nil, invalidData("code-mode IPC frame declares %d payload bytes but contains %d", n, got)
	}
	return message[HeaderBytes:], nil
}
