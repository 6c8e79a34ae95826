package v1frame_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// FuzzStreamReader feeds arbitrary byte streams to the stream reader, one byte per read: every
// outcome is a payload, a clean EOF at a boundary, an unexpected EOF or invalid data, and the
// payloads read re-frame to exactly the bytes consumed.
func FuzzStreamReader(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x0b, 0, 0, 0, '{', '"', 'v', 'a', 'l', 'u', 'e', '"', ':', '1', '}'})
	f.Add([]byte{1, 0})
	f.Add([]byte{3, 0, 0, 0, '{'})
	f.Add([]byte{1, 0, 0, 4})
	f.Add([]byte{0, 0, 0, 0, 2, 0, 0, 0, '{', '}'})
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := v1frame.NewReader(iotest.OneByteReader(bytes.NewReader(stream)))
		var reframed []byte
		for {
			payload, err := r.Read()
			switch {
			case err == io.EOF:
				if !bytes.Equal(reframed, stream) {
					t.Fatalf("clean EOF after %d of %d bytes", len(reframed), len(stream))
				}
				return
			case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, v1frame.ErrInvalidData):
				if !bytes.HasPrefix(stream, reframed) || len(reframed) == len(stream) && !errors.Is(err, v1frame.ErrInvalidData) {
					t.Fatalf("error %v at a boundary the stream does not have", err)
				}
				return
			case err != nil:
				t.Fatalf("unclassified error %v", err)
			}
			if len(payload) > v1frame.MaxFrameBytes {
				t.Fatalf("payload of %d bytes", len(payload))
			}
			reframed, err = v1frame.Append(reframed, payload)
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzMessageDecoder feeds arbitrary WebSocket messages to the message decoder: a message is
// accepted exactly when it is one well-formed frame, and then it re-encodes byte for byte; every
// rejection is invalid data (a message is never "unexpectedly short").
func FuzzMessageDecoder(f *testing.F) {
	f.Add([]byte{0x0b, 0, 0, 0, '{', '"', 'v', 'a', 'l', 'u', 'e', '"', ':', '1', '}'})
	f.Add([]byte{1, 0})
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, '{', '}'})
	f.Fuzz(func(t *testing.T, msg []byte) {
		payload, err := v1frame.Decode(msg)
		if err != nil {
			if !errors.Is(err, v1frame.ErrInvalidData) || errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("message rejection %v is not invalid data", err)
			}
			return
		}
		again, err := v1frame.Append(nil, payload)
		if err != nil || !bytes.Equal(again, msg) {
			t.Fatalf("re-encoding % x gave % x, %v", msg, again, err)
		}
		// The stream reader must agree with the message decoder on a whole frame.
		got, err := v1frame.NewReader(bytes.NewReader(msg)).Read()
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("stream read %q, %v; want %q", got, err, payload)
		}
	})
}
