package v1frame_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/codemodehq/codemode/pkg/v1/v1frame"
)

func TestFrameWireFormatIsLittleEndianLengthPrefixedJSON(t *testing.T) {
	got, err := v1frame.Append(nil, []byte(`{"value":1}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x0b, 0, 0, 0, 0x7b, 0x22, 0x76, 0x61, 0x6c, 0x75, 0x65, 0x22, 0x3a, 0x31, 0x7d}
	if !bytes.Equal(got, want) {
		t.Fatalf("got % x, want % x", got, want)
	}
}

func TestCompleteFrameRoundTripsWithoutAByteStream(t *testing.T) {
	msg, _ := v1frame.Append(nil, []byte(`{"type":"operation/cancel","id":1}`))
	payload, err := v1frame.Decode(msg)
	if err != nil || string(payload) != `{"type":"operation/cancel","id":1}` {
		t.Fatalf("Decode = %q, %v", payload, err)
	}
}

func TestCompleteFrameRejectsTruncatedAndTrailingPayloads(t *testing.T) {
	msg, _ := v1frame.Append(nil, []byte(`{"value":1}`))
	cases := map[string]struct {
		message []byte
		want    string
	}{
		"truncated":      {msg[:len(msg)-1], "code-mode IPC frame declares 11 payload bytes but contains 10"},
		"trailing":       {append(bytes.Clone(msg), ' '), "code-mode IPC frame declares 11 payload bytes but contains 12"},
		"missing prefix": {[]byte{1, 0, 0}, "code-mode IPC frame is missing its length prefix"},
		"empty":          {nil, "code-mode IPC frame is missing its length prefix"},
		"oversize":       {binary.LittleEndian.AppendUint32(nil, v1frame.MaxFrameBytes+1), "code-mode IPC frame length 67108865 exceeds 67108864 bytes"},
	}
	for name, c := range cases {
		_, err := v1frame.Decode(c.message)
		if err == nil || err.Error() != c.want || !errors.Is(err, v1frame.ErrInvalidData) {
			t.Errorf("%s: err = %v, want InvalidData %q", name, err, c.want)
		}
	}
}

func TestFragmentedFrameRoundTrips(t *testing.T) {
	var stream bytes.Buffer
	w := v1frame.NewWriter(&stream)
	for _, p := range []string{`{"value":1}`, `{}`, ``} {
		if err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	r := v1frame.NewReader(iotest.OneByteReader(&stream))
	for _, want := range []string{`{"value":1}`, `{}`, ``} {
		got, err := r.Read()
		if err != nil || string(got) != want {
			t.Fatalf("Read = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("after last frame: %v, want io.EOF", err)
	}
}

func TestEOFIsCleanOnlyAtAFrameBoundary(t *testing.T) {
	if _, err := v1frame.NewReader(bytes.NewReader(nil)).Read(); err != io.EOF {
		t.Fatalf("empty stream: %v, want io.EOF", err)
	}
	for name, stream := range map[string][]byte{
		"partial header":  {1, 0},
		"partial payload": {3, 0, 0, 0, '{'},
	} {
		_, err := v1frame.NewReader(bytes.NewReader(stream)).Read()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v, want io.ErrUnexpectedEOF", name, err)
		}
	}
}

// failingReader fails the test if anything beyond the header is read.
type failingReader struct {
	header []byte
	t      *testing.T
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.header) == 0 {
		f.t.Fatal("payload read after an oversize header")
	}
	n := copy(p, f.header)
	f.header = f.header[n:]
	return n, nil
}

func TestOversizedFramesAreRejectedBeforeReadingThePayload(t *testing.T) {
	r := v1frame.NewReader(&failingReader{header: binary.LittleEndian.AppendUint32(nil, v1frame.MaxFrameBytes+1), t: t})
	_, err := r.Read()
	if err == nil || err.Error() != "code-mode IPC frame length 67108865 exceeds 67108864 bytes" || !errors.Is(err, v1frame.ErrInvalidData) {
		t.Fatalf("err = %v", err)
	}
}

func TestMaxSizedFrameIsAccepted(t *testing.T) {
	payload := make([]byte, v1frame.MaxFrameBytes)
	msg, err := v1frame.Append(nil, payload)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := v1frame.Decode(msg); err != nil || len(got) != v1frame.MaxFrameBytes {
		t.Fatalf("Decode: len %d, %v", len(got), err)
	}
	if _, err := v1frame.Append(nil, make([]byte, v1frame.MaxFrameBytes+1)); err == nil ||
		err.Error() != "code-mode IPC frame length 67108865 exceeds 67108864 bytes" || !errors.Is(err, v1frame.ErrInvalidData) {
		t.Fatalf("oversize encode: %v", err)
	}
}

func TestTextMessageErrorIsInvalidData(t *testing.T) {
	if v1frame.ErrTextMessage.Error() != "code-mode websocket messages must be binary framed messages" || !errors.Is(v1frame.ErrTextMessage, v1frame.ErrInvalidData) {
		t.Fatalf("ErrTextMessage = %v", v1frame.ErrTextMessage)
	}
}

func TestMalformedPayloadIsTheDecodersConcern(t *testing.T) {
	// The framing layer passes `{` through; rejecting it is the JSON decoder's job.
	msg, _ := v1frame.Append(nil, []byte("{"))
	got, err := v1frame.NewReader(bytes.NewReader(msg)).Read()
	if err != nil || string(got) != "{" {
		t.Fatalf("Read = %q, %v", got, err)
	}
}

func TestWriterPropagatesTransportErrors(t *testing.T) {
	if err := v1frame.NewWriter(errWriter{}).Write([]byte("x")); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("err = %v", err)
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }
