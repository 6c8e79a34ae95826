package execserver

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execrpc"
)

// PathToURI renders an absolute native path as a file:// URI.
func PathToURI(p string) wire.PathUri {
	return wire.PathUri((&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String())
}

// URIToPath parses a file:// URI into an absolute, cleaned native path.
func URIToPath(u wire.PathUri) (string, error) {
	parsed, err := url.Parse(string(u))
	if err != nil || parsed.Scheme != "file" || (parsed.Host != "" && parsed.Host != "localhost") || parsed.Path == "" || !strings.HasPrefix(parsed.Path, "/") {
		return "", fmt.Errorf("invalid file URI `%s`", u)
	}
	return filepath.Clean(filepath.FromSlash(parsed.Path)), nil
}

// confine maps a URI to a path inside the root: the path itself, and the real path of its
// deepest existing ancestor (symlinks resolved), must both lie inside it. With no root every
// absolute path is allowed.
func (s *Server) confine(u wire.PathUri) (string, error) {
	p, err := URIToPath(u)
	if err != nil {
		return "", execrpc.Errorf(execrpc.CodeInvalidParams, "%v", err)
	}
	if s.root == "" {
		return p, nil
	}
	real, err := realPath(p)
	if err != nil {
		return "", execrpc.Errorf(execrpc.CodeInternalError, "%v", err)
	}
	if !within(s.root, real) {
		return "", s.outside(p)
	}
	return p, nil
}

func (s *Server) outside(p string) error {
	return execrpc.Errorf(execrpc.CodeInvalidParams, "access denied: %s is outside the exec-server root %s", p, s.root)
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// realPath resolves the symlinks of p's deepest existing ancestor and appends the rest.
func realPath(p string) (string, error) {
	rest := ""
	for cur := p; ; {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// fsError turns an os error into a JSON-RPC error with its text.
func fsError(err error) error {
	if err == nil {
		return nil
	}
	var rpcErr *execrpc.Error
	if errors.As(err, &rpcErr) {
		return err
	}
	return execrpc.Errorf(execrpc.CodeInternalError, "%v", err)
}

// rootOf checks and resolves a --root directory.
func rootOf(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("root %s: %w", dir, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("root %s is not a directory", dir)
	}
	return real, nil
}
