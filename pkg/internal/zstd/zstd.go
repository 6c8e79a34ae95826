// Package zstd is the zstd compression of codemode's gRPC host and client: Codex 0.169's gRPC
// client offers it (grpc-accept-encoding: zstd,identity).
package zstd

import (
	"io"

	"connectrpc.com/connect/v2"
	kzstd "github.com/klauspost/compress/zstd"
)

// Name is the grpc-encoding token of zstd.
const Name = "zstd"

// maxWindow bounds the decoder's memory: a message is at most 64 MiB (grpcconv.MaxMessageBytes),
// and connect bounds the decompressed size by its read limit too.
const maxWindow = 64 << 20

// New returns a connect Compressor for zstd, single-threaded and bounded in memory, so that a
// small compressed message cannot make its reader allocate more than a message may hold.
func New() connect.Compressor { return zstdCompressor{} }

type zstdCompressor struct{}

// Name returns "zstd".
func (zstdCompressor) Name() string { return Name }

// Compress returns a single-threaded zstd writer to dst.
func (zstdCompressor) Compress(dst io.Writer) (io.WriteCloser, error) {
	return kzstd.NewWriter(dst, kzstd.WithEncoderConcurrency(1))
}

// Decompress returns a single-threaded zstd reader of src, bounded in memory.
func (zstdCompressor) Decompress(src io.Reader) (io.ReadCloser, error) {
	d, err := kzstd.NewReader(src, kzstd.WithDecoderConcurrency(1), kzstd.WithDecoderMaxMemory(maxWindow), kzstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return nil, err
	}
	return d.IOReadCloser(), nil
}
