package execserver

import (
	"encoding/base64"
	"errors"
	"io"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
)

// MaxReadBlockBytes is the largest fs/readBlock length: Codex's exec-server's limit, so a read
// that a client sized for that server is accepted here, and one refused there is refused here.
const MaxReadBlockBytes = 1 << 20

// MaxOpenHandles bounds the files one connection may hold open with fs/open, so a client cannot
// exhaust the exec-server's descriptors; past it fs/open is refused.
const MaxOpenHandles = 256

// openFile answers fs/open: the regular file at path, under the client's handle id, until
// fs/close or the end of the connection.
func (s *session) openFile(p wire.FsOpenParams) (wire.Message, error) {
	path, err := s.srv.confine(p.Path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	_, dup := s.handles[p.HandleId]
	full := len(s.handles) >= MaxOpenHandles
	s.mu.Unlock()
	if dup {
		return nil, invalidRequest("file handle `%s` already exists", p.HandleId)
	}
	if full {
		return nil, invalidRequest("too many open file handles (at most %d per connection)", MaxOpenHandles)
	}
	f, err := openRegular(path, true)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.handles[p.HandleId]; dup {
		f.Close()
		return nil, invalidRequest("file handle `%s` already exists", p.HandleId)
	}
	s.handles[p.HandleId] = f
	return wire.FsOpenResponse{HandleId: p.HandleId}, nil
}

// readBlock answers fs/readBlock: up to len bytes at offset, and whether the file ends there.
func (s *session) readBlock(p wire.FsReadBlockParams) (wire.Message, error) {
	if p.Len < 1 || p.Len > MaxReadBlockBytes {
		return nil, invalidRequest("file read block length must be between 1 and %d", MaxReadBlockBytes)
	}
	s.mu.Lock()
	f := s.handles[p.HandleId]
	s.mu.Unlock()
	if f == nil {
		return nil, &execrpc.Error{Code: CodeNotFound, Message: "unknown file handle `" + p.HandleId + "`"}
	}
	buf := make([]byte, p.Len)
	n, err := f.ReadAt(buf, int64(min(p.Offset, 1<<62)))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fsError(err)
	}
	eof := errors.Is(err, io.EOF)
	if !eof {
		// A block that ends exactly at the end of the file reports eof (so does Codex's
		// exec-server), so a client reading block by block stops without one more empty read.
		st, err := f.Stat()
		eof = err == nil && int64(p.Offset)+int64(n) >= st.Size()
	}
	return wire.FsReadBlockResponse{Chunk: base64.StdEncoding.EncodeToString(buf[:n]), Eof: eof}, nil
}

// closeFile answers fs/close; an unknown handle is already closed.
func (s *session) closeFile(p wire.FsCloseParams) (wire.Message, error) {
	s.mu.Lock()
	f := s.handles[p.HandleId]
	delete(s.handles, p.HandleId)
	s.mu.Unlock()
	if f != nil {
		f.Close()
	}
	return wire.EmptyResponse{}, nil
}

// closeFiles closes every handle of the session (the connection ended).
func (s *session) closeFiles() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, f := range s.handles {
		f.Close()
		delete(s.handles, id)
	}
}
