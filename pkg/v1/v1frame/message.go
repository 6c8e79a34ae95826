package v1frame

import "encoding/binary"

// ErrTextMessage is the error a message transport returns for a text (non-binary) WebSocket
// message; every V1 WebSocket message must be one binary frame.
var ErrTextMessage error = &dataError{msg: "code-mode websocket messages must be binary framed messages"}

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

// MaxMessageBytes is the largest message a message transport needs to accept: one frame of
// MaxFrameBytes with its prefix (Codex's WebSocket limit, 64 MiB + 4).
const MaxMessageBytes = MaxFrameBytes + HeaderBytes
