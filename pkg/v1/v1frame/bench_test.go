package v1frame_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

// BenchmarkCodec measures framing throughput on a 1 KiB and a 64 MiB payload: encoding into a
// frame (Reserve + copy + Seal, as the drivers encode), decoding one WebSocket message, and
// reading one frame from a byte stream. Bytes per second are payload bytes.
func BenchmarkCodec(b *testing.B) {
	for _, size := range []int{1 << 10, v1frame.MaxFrameBytes} {
		payload := bytes.Repeat([]byte("x"), size)
		msg, err := v1frame.Append(nil, payload)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%dKiB", size>>10)
		b.Run("encode/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			buf := make([]byte, 0, len(msg))
			for b.Loop() {
				f := append(v1frame.Reserve(buf[:0]), payload...)
				if _, err := v1frame.Seal(f); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("message/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := v1frame.Decode(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("stream/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			rd := bytes.NewReader(msg)
			for b.Loop() {
				rd.Reset(msg)
				if _, err := v1frame.NewReader(rd).Read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
