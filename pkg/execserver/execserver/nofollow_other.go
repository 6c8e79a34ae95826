//go:build !unix

package execserver

// oNoFollow is nothing where open has no O_NOFOLLOW (Windows): a path whose last component is a
// symbolic link is opened through it even with followSymlinks false. On Unix the exec-server
// honours followSymlinks as a Codex client expects (docs/protocol/exec-server.md#methods);
// elsewhere it only builds, so that the host program builds, and reads follow links.
const oNoFollow = 0
