// Package v1frame implements the V1 host protocol framing: a 4-byte little-endian payload length
// followed by the payload (one JSON document). A frame is read in one of two ways, because a byte
// stream and a message transport end differently (docs/protocol/v1.md#framing):
//
//   - from a byte stream (stdio) by a Reader: the stream may end cleanly only at a frame
//     boundary; a partial header or payload is an unexpected EOF (stream.go);
//   - from a message transport (one binary WebSocket message = one complete frame) by Decode: a
//     missing prefix, a truncated or trailing payload and an oversize length are all invalid data,
//     since a message cannot be "partial" (message.go).
//
// Error texts match Codex's (docs/protocol/v1.md#framing) so they can surface unchanged.
package v1frame

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

// Reserve appends room for a frame header to dst, for a payload that the caller then appends
// in place; Seal completes the frame. Encoding straight into a frame this way saves copying
// the payload, which matters for frames of many megabytes.
func Reserve(dst []byte) []byte {
	return append(dst, 0, 0, 0, 0)
}

// Seal writes the length of the payload that follows a header Reserve put at frame[0:4] and
// returns the frame. Like Append, it refuses a payload above MaxFrameBytes.
func Seal(frame []byte) ([]byte, error) {
	n := len(frame) - HeaderBytes
	if n < 0 {
		return nil, invalidData("code-mode IPC frame is missing its length prefix")
	}
	if uint64(n) > math.MaxUint32 {
		return nil, invalidData("code-mode IPC frame length exceeds u32")
	}
	if n > MaxFrameBytes {
		return nil, tooLarge(uint64(n))
	}
	binary.LittleEndian.PutUint32(frame, uint32(n))
	return frame, nil
}
