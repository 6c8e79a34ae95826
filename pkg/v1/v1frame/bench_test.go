package v1frame

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkCodec measures framing throughput on a 1 KiB and a 64 MiB payload: encoding into a
// frame (Reserve + copy + Seal, as the drivers encode), decoding one WebSocket message, and
// reading one frame from a byte stream. Bytes per second are payload bytes.
func BenchmarkCodec(b *testing.B) {
	for _, size := range []int{1 << 10, MaxFrameBytes} {
		payload := bytes.Repeat([]byte("x"), size)
		msg, err := Append(nil, payload)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%dKiB", size>>10)
		b.Run("encode/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			buf := make([]byte, 0, len(msg))
			for b.Loop() {
				f := append(Reserve(buf[:0]), payload...)
				if _, err := Seal(f); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("message/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := Decode(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("stream/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			rd := bytes.NewReader(msg)
			for b.Loop() {
				rd.Reset(msg)
				if _, err := NewReader(rd).Read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
