//go:build !unix

package toolprovider

import "os/exec"

// killProcessGroupOnCancel leaves exec's default cancellation, which kills the command's own
// process only: process groups are a Unix notion, and codemode is tested on Linux.
func killProcessGroupOnCancel(*exec.Cmd) {}
