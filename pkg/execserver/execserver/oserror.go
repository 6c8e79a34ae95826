package execserver

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/codemodehq/codemode/pkg/execserver/execrpc"
)

// CodeNotFound is Codex's exec-server code for a path or handle that does not exist (an io
// error of kind NotFound); every other io error is CodeInternalError.
const CodeNotFound = -32004

// muslTexts are the C library's strerror texts of the errnos a file or process method meets, in
// musl's wording: the texts Codex's exec-server (a musl build) sends, which a client shows as they
// come (docs/exec-server.md); Go's own texts are lower-case glibc wording.
var muslTexts = map[syscall.Errno]string{
	syscall.EPERM:        "Operation not permitted",
	syscall.ENOENT:       "No such file or directory",
	syscall.EIO:          "I/O error",
	syscall.EBADF:        "Bad file descriptor",
	syscall.EACCES:       "Permission denied",
	syscall.EBUSY:        "Resource busy",
	syscall.EEXIST:       "File exists",
	syscall.EXDEV:        "Cross-device link",
	syscall.ENOTDIR:      "Not a directory",
	syscall.EISDIR:       "Is a directory",
	syscall.EINVAL:       "Invalid argument",
	syscall.EMFILE:       "No file descriptors available",
	syscall.ETXTBSY:      "Text file busy",
	syscall.EFBIG:        "File too large",
	syscall.ENOSPC:       "No space left on device",
	syscall.EROFS:        "Read-only file system",
	syscall.EMLINK:       "Too many links",
	syscall.ENAMETOOLONG: "Filename too long",
	syscall.ENOTEMPTY:    "Directory not empty",
	syscall.ELOOP:        "Symbolic link loop",
	syscall.E2BIG:        "Argument list too long",
	syscall.ENOEXEC:      "Exec format error",
	syscall.ENOMEM:       "Out of memory",
}

// ioText renders err as Rust's io::Error does for an OS error: "Not a directory (os error 20)";
// an error without an errno keeps its own text.
func ioText(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	text, ok := muslTexts[errno]
	if !ok {
		text = errno.Error()
	}
	return fmt.Sprintf("%s (os error %d)", text, int(errno))
}

// fsError turns an os error into Codex's JSON-RPC error: CodeNotFound for a missing path,
// CodeInternalError otherwise, with the io error's text. An *execrpc.Error passes unchanged.
func fsError(err error) error {
	if err == nil {
		return nil
	}
	var rpcErr *execrpc.Error
	if errors.As(err, &rpcErr) {
		return err
	}
	code := int64(execrpc.CodeInternalError)
	if errors.Is(err, fs.ErrNotExist) {
		code = CodeNotFound
	}
	return &execrpc.Error{Code: code, Message: ioText(err)}
}

// invalidRequest is a -32600 error, Codex's code for a request its method refuses.
func invalidRequest(format string, args ...any) error {
	return execrpc.Errorf(execrpc.CodeInvalidRequest, format, args...)
}
