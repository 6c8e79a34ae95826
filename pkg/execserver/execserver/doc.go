// Package execserver is Codex's exec-server (docs/protocol/exec-server.md#scope, the part codemode
// serves) served over any execrpc.Conn: initialize/initialized, environment/info (every
// capability false) and environment/status, process/start|read|write|signal|terminate with real
// processes (each in its own process group; process/output, process/exited and process/closed in
// seq order; base64 chunks; no pty) and fs/readFile|writeFile|getMetadata|readDirectory|
// createDirectory|remove|copy|canonicalize on file:// URIs.
//
// It is unsandboxed, and says so: process/start answers sandboxType "none", a `sandbox` context
// is not enforced, and `enforceManagedNetwork` is refused (failing closed). Options.Root confines
// the fs/* methods and process working directories to one directory tree (symlinks resolved);
// everything outside is refused. The processes themselves are not confined.
package execserver
