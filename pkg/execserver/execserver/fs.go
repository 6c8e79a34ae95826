package execserver

import (
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
)

// MaxReadFileBytes bounds fs/readFile: its base64 must fit in one message.
const MaxReadFileBytes = 32 << 20

// The fs methods keep the contract a client of Codex 0.171's exec-server was written against
// (docs/protocol/exec-server.md#methods, docs/exec-server.md): its defaults (createDirectory and
// remove are recursive, remove is forced), which a client that leaves the flags out relies on;
// its refusals (-32600 with its texts) and its io errors (CodeNotFound or CodeInternalError with
// Rust's wording, see fsError), which a client tells apart by code and shows by text.

func (s *Server) readFile(p wire.FsReadFileParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	f, err := openRegular(path, followOf(p.FollowSymlinks))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReadFileBytes+1))
	if err != nil {
		return nil, fsError(err)
	}
	if len(data) > MaxReadFileBytes {
		return nil, invalidRequest("path `%s` is larger than %d bytes; read it with fs/open and fs/readBlock", path, MaxReadFileBytes)
	}
	return wire.FsReadFileResponse{DataBase64: base64.StdEncoding.EncodeToString(data)}, nil
}

// followOf is a followSymlinks flag's value: absent means follow.
func followOf(flag *bool) bool { return flag == nil || *flag }

// openRegular opens path for reading, refusing anything but a regular file ("path `P` is not a
// file"); without follow a symlink at the end fails as O_NOFOLLOW makes it (ELOOP).
func openRegular(path string, follow bool) (*os.File, error) {
	flags := os.O_RDONLY
	if !follow {
		flags |= oNoFollow
	}
	f, err := os.OpenFile(path, flags|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fsError(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fsError(err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, invalidRequest("path `%s` is not a file", path)
	}
	return f, nil
}

func (s *Server) writeFile(p wire.FsWriteFileParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	data, err := decodeBase64(p.DataBase64)
	if err != nil {
		return nil, invalidRequest("fs/writeFile requires valid base64 dataBase64: %v", err)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !followOf(p.FollowSymlinks) {
		flags |= oNoFollow
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fsError(err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fsError(err)
	}
	return wire.EmptyResponse{}, fsError(f.Close())
}

func (s *Server) createDirectory(p wire.FsCreateDirectoryParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	if p.Recursive != nil && !*p.Recursive {
		return wire.EmptyResponse{}, fsError(os.Mkdir(path, 0o755))
	}
	// Rust's create_dir_all: an existing directory is fine, an existing file is EEXIST.
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return nil, fsError(&fs.PathError{Op: "mkdir", Path: path, Err: syscall.EEXIST})
	}
	return wire.EmptyResponse{}, fsError(os.MkdirAll(path, 0o755))
}

func (s *Server) getMetadata(p wire.FsGetMetadataParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	follow := followOf(p.FollowSymlinks)
	if !follow {
		if err := refuseSymlinks(path); err != nil {
			return nil, err
		}
	}
	lst, err := os.Lstat(path)
	if err != nil {
		return nil, fsError(err)
	}
	st := lst
	isLink := lst.Mode()&fs.ModeSymlink != 0
	if isLink {
		if st, err = os.Stat(path); err != nil {
			return nil, fsError(err)
		}
	}
	return wire.FsGetMetadataResponse{
		IsDirectory: st.IsDir(), IsFile: st.Mode().IsRegular(), IsSymlink: isLink,
		Size: uint64(st.Size()), CreatedAtMs: birthMillis(path, true), ModifiedAtMs: st.ModTime().UnixMilli(),
	}, nil
}

// refuseSymlinks walks path's components as an O_NOFOLLOW open would: a symlink before the
// last component is ENOTDIR, a symlink as the last one is Codex's "path contains a symbolic
// link"; a missing component is left to the caller's own error.
func refuseSymlinks(path string) error {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	cur := "/"
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if err != nil {
			return nil
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if i < len(parts)-1 {
			return fsError(&fs.PathError{Op: "open", Path: cur, Err: syscall.ENOTDIR})
		}
		return invalidRequest("path contains a symbolic link")
	}
	return nil
}

func (s *Server) canonicalize(p wire.FsCanonicalizeParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fsError(err)
	}
	return wire.FsCanonicalizeResponse{Path: PathToURI(real)}, nil
}

// readDirectory lists a directory in the order the file system returns it: the protocol
// promises no order, and sorting would promise one that Codex's exec-server does not keep
// (docs/exec-server.md), so a client that wants one sorts; a symlink's kind is its target's, and
// a symlink whose target cannot be read is left out.
func (s *Server) readDirectory(p wire.FsReadDirectoryParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	dir, err := os.Open(path)
	if err != nil {
		return nil, fsError(err)
	}
	defer dir.Close()
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, fsError(err)
	}
	out := wire.FsReadDirectoryResponse{Entries: make([]wire.FsReadDirectoryEntry, 0, len(entries))}
	for _, e := range entries {
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			st, err := os.Stat(filepath.Join(path, e.Name()))
			if err != nil {
				continue
			}
			mode = st.Mode()
		}
		out.Entries = append(out.Entries, wire.FsReadDirectoryEntry{FileName: e.Name(), IsDirectory: mode.IsDir(), IsFile: mode.IsRegular()})
	}
	return out, nil
}

func (s *Server) remove(p wire.FsRemoveParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	if s.isRoot(path) {
		return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "access denied: %s is the exec-server root %s itself, which fs/remove keeps", path, s.root)
	}
	force := p.Force == nil || *p.Force
	if _, err := os.Lstat(path); err != nil {
		if force && errors.Is(err, fs.ErrNotExist) {
			return wire.EmptyResponse{}, nil
		}
		return nil, fsError(err)
	}
	if p.Recursive != nil && !*p.Recursive {
		return wire.EmptyResponse{}, fsError(os.Remove(path))
	}
	return wire.EmptyResponse{}, fsError(os.RemoveAll(path))
}

func (s *Server) copy(p wire.FsCopyParams) (wire.Message, error) {
	src, err := s.confine(p.SourcePath)
	if err != nil {
		return nil, err
	}
	dst, err := s.confine(p.DestinationPath)
	if err != nil {
		return nil, err
	}
	st, err := os.Lstat(src)
	if err != nil {
		return nil, fsError(err)
	}
	switch {
	case st.IsDir() && !p.Recursive:
		return nil, invalidRequest("fs/copy requires recursive: true when sourcePath is a directory")
	case st.IsDir() && within(src, dst):
		return nil, invalidRequest("fs/copy cannot copy a directory to itself or one of its descendants")
	case st.IsDir():
		return wire.EmptyResponse{}, fsError(copyTree(src, dst))
	case st.Mode()&fs.ModeSymlink != 0:
		return wire.EmptyResponse{}, fsError(copySymlink(src, dst))
	}
	return wire.EmptyResponse{}, fsError(copyFile(src, dst, st.Mode().Perm()))
}

func copySymlink(src, dst string) error {
	link, err := os.Readlink(src)
	if err != nil {
		return err
	}
	return os.Symlink(link, dst)
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			return copySymlink(p, target)
		case d.Type().IsRegular():
			return copyFile(p, target, info.Mode().Perm())
		}
		return nil
	})
}
