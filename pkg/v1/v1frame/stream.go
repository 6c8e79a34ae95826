package v1frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Reader reads frames from a byte stream. It is not safe for concurrent use.
type Reader struct {
	r      io.Reader
	header [HeaderBytes]byte
}

// NewReader returns a Reader on r. Wrap r in a bufio.Reader when it is unbuffered.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r}
}

// Read returns the next payload. At a frame boundary, a stream that ends returns io.EOF; a stream
// that ends inside a header or payload returns an error wrapping io.ErrUnexpectedEOF. A declared
// length above MaxFrameBytes is rejected before any payload byte is read.
func (r *Reader) Read() ([]byte, error) {
	if _, err := io.ReadFull(r.r, r.header[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("code-mode IPC frame header is truncated: %w", io.ErrUnexpectedEOF)
		}
		return nil, err // io.EOF at a boundary, or a transport error
	}
	n := binary.LittleEndian.Uint32(r.header[:])
	if n > MaxFrameBytes {
		return nil, tooLarge(uint64(n))
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r.r, payload); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("code-mode IPC frame payload is truncated: %w", io.ErrUnexpectedEOF)
		}
		return nil, err
	}
	return payload, nil
}

// Writer writes frames to a byte stream, one Write call per frame. It is not safe for
// concurrent use.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// Write frames payload and writes it.
func (w *Writer) Write(payload []byte) error {
	b, err := Append(w.buf[:0], payload)
	if err != nil {
		return err
	}
	w.buf = b
	_, err = w.w.Write(b)
	return err
}

// WriteFrame writes a complete frame (from Append or Seal) as it is.
func (w *Writer) WriteFrame(frame []byte) error {
	_, err := w.w.Write(frame)
	return err
}
