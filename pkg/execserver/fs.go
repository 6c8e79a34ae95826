package execserver

import (
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execrpc"
)

// MaxReadFileBytes bounds fs/readFile: its base64 must fit in one message.
const MaxReadFileBytes = 32 << 20

func (s *Server) readFile(p wire.FsReadFileParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fsError(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReadFileBytes+1))
	if err != nil {
		return nil, fsError(err)
	}
	if len(data) > MaxReadFileBytes {
		return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "%s is larger than %d bytes", path, MaxReadFileBytes)
	}
	return wire.FsReadFileResponse{DataBase64: base64.StdEncoding.EncodeToString(data)}, nil
}

func (s *Server) writeFile(p wire.FsWriteFileParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	data, err := base64.StdEncoding.DecodeString(p.DataBase64)
	if err != nil {
		return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "dataBase64: %v", err)
	}
	return wire.EmptyResponse{}, fsError(os.WriteFile(path, data, 0o644))
}

func (s *Server) createDirectory(p wire.FsCreateDirectoryParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	if p.Recursive != nil && *p.Recursive {
		err = os.MkdirAll(path, 0o755)
	} else {
		err = os.Mkdir(path, 0o755)
	}
	return wire.EmptyResponse{}, fsError(err)
}

func (s *Server) getMetadata(p wire.FsGetMetadataParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	lst, err := os.Lstat(path)
	if err != nil {
		return nil, fsError(err)
	}
	st := lst
	isLink := lst.Mode()&fs.ModeSymlink != 0
	if isLink && (p.FollowSymlinks == nil || *p.FollowSymlinks) {
		if st, err = os.Stat(path); err != nil {
			return nil, fsError(err)
		}
	}
	return wire.FsGetMetadataResponse{
		IsDirectory: st.IsDir(), IsFile: st.Mode().IsRegular(), IsSymlink: isLink,
		Size: uint64(st.Size()), CreatedAtMs: 0, ModifiedAtMs: st.ModTime().UnixMilli(),
	}, nil
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

func (s *Server) readDirectory(p wire.FsReadDirectoryParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fsError(err)
	}
	out := wire.FsReadDirectoryResponse{Entries: make([]wire.FsReadDirectoryEntry, 0, len(entries))}
	for _, e := range entries {
		out.Entries = append(out.Entries, wire.FsReadDirectoryEntry{FileName: e.Name(), IsDirectory: e.IsDir(), IsFile: e.Type().IsRegular()})
	}
	return out, nil
}

func (s *Server) remove(p wire.FsRemoveParams) (wire.Message, error) {
	path, err := s.confine(p.Path)
	if err != nil {
		return nil, err
	}
	if p.Recursive != nil && *p.Recursive {
		if _, err := os.Lstat(path); err != nil && !(p.Force != nil && *p.Force) {
			return nil, fsError(err)
		}
		err = os.RemoveAll(path)
	} else {
		err = os.Remove(path)
		if errors.Is(err, fs.ErrNotExist) && p.Force != nil && *p.Force {
			err = nil
		}
	}
	return wire.EmptyResponse{}, fsError(err)
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
	st, err := os.Stat(src)
	if err != nil {
		return nil, fsError(err)
	}
	if st.IsDir() {
		if !p.Recursive {
			return nil, execrpc.Errorf(execrpc.CodeInvalidParams, "%s is a directory; copying it needs recursive", src)
		}
		return wire.EmptyResponse{}, fsError(copyTree(src, dst))
	}
	return wire.EmptyResponse{}, fsError(copyFile(src, dst, st.Mode().Perm()))
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
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(p, target, info.Mode().Perm())
		}
		return nil
	})
}
