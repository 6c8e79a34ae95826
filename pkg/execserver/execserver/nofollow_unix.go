//go:build unix

package execserver

import "syscall"

// oNoFollow makes an open fail (ELOOP) when the path's last component is a symbolic link.
const oNoFollow = syscall.O_NOFOLLOW
