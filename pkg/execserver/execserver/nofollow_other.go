//go:build !unix

package execserver

// oNoFollow is nothing where open has no O_NOFOLLOW (Windows): a path whose last component is a
// symbolic link is opened through it even with followSymlinks false. The exec-server's file
// system mirrors Codex's on Unix; elsewhere it builds so that the host does, and reads follow
// links.
const oNoFollow = 0
