//go:build unix

package cli

import (
	"syscall"
)

// noFollow makes open refuse a symlink as the last path element.
const noFollow = syscall.O_NOFOLLOW
