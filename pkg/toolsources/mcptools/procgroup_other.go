//go:build !unix

package mcptools

import "os/exec"

// newProcessGroup does nothing: process groups are a Unix notion, and codemode is tested on
// Linux.
func newProcessGroup(*exec.Cmd) {}

// killProcessGroup kills cmd's own process only.
func killProcessGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
