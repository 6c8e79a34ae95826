package execserver

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	wire "github.com/codemodehq/codemode/gen/go/execserverwire"
	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
)

// PathToURI renders an absolute native path as a file:// URI.
func PathToURI(p string) wire.PathUri {
	return wire.PathUri((&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String())
}

// URIToPath parses a path URI into an absolute, cleaned native path, with the checks and texts
// of Codex's exec-server (codex_utils_path_uri over the url crate): a scheme is required and
// must be file (any case); a query or a fragment is refused; the host must be empty or localhost; %XX escapes
// are decoded and an invalid one is kept literally; "." and ".." segments are resolved.
func URIToPath(u wire.PathUri) (string, error) {
	s := string(u)
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || !validScheme(scheme) {
		return "", execrpc.Errorf(execrpc.CodeInvalidParams, "invalid URI: relative URL without a base")
	}
	if !strings.EqualFold(scheme, "file") {
		return "", execrpc.Errorf(execrpc.CodeInvalidParams, "unsupported path URI scheme `%s`", strings.ToLower(scheme))
	}
	rest, _, hasFragment := strings.Cut(rest, "#")
	if strings.Contains(rest, "?") {
		return "", execrpc.Errorf(execrpc.CodeInvalidParams, "query parameters are not allowed in path URIs")
	}
	if hasFragment {
		return "", execrpc.Errorf(execrpc.CodeInvalidParams, "fragments are not allowed in path URIs")
	}
	if after, isAuthority := strings.CutPrefix(rest, "//"); isAuthority {
		host, path, _ := strings.Cut(after, "/")
		if host != "" && !strings.EqualFold(host, "localhost") {
			return "", execrpc.Errorf(execrpc.CodeInvalidRequest, "'%s' is invalid on '%s'", s, runtime.GOOS)
		}
		rest = "/" + path
	}
	return filepath.Clean("/" + percentDecode(rest)), nil
}

// validScheme reports whether s is a URI scheme: a letter, then letters, digits, + - or .
func validScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// percentDecode decodes %XX escapes; a '%' not followed by two hex digits stays as it is.
func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if hi, lo := unhex(s[i+1]), unhex(s[i+2]); hi >= 0 && lo >= 0 {
				out = append(out, byte(hi<<4|lo))
				i += 2
				continue
			}
		}
		out = append(out, s[i])
	}
	return string(out)
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// confine maps a URI to a path inside the root: the path itself, and the real path of its
// deepest existing ancestor (symlinks resolved), must both lie inside it. With no root every
// absolute path is allowed.
func (s *Server) confine(u wire.PathUri) (string, error) {
	p, err := URIToPath(u)
	if err != nil {
		return "", err
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

// isRoot reports whether p (confined) names the root itself, however it is spelt ("root/sub/..",
// a symlink to it): the root is what the confinement is relative to, and removing it would take
// the server's whole working area.
func (s *Server) isRoot(p string) bool {
	if s.root == "" {
		return false
	}
	real, err := realPath(filepath.Clean(p))
	return err == nil && real == s.root
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
