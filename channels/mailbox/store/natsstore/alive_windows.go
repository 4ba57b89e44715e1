package natsstore

import (
	"errors"
	"os"
	"syscall"
)

// alive reports whether a process with pid runs on this host. A process
// this user may not open counts as running; so may one that has just
// exited while something still holds its handle: its lock then waits out
// the TTL instead of being taken over.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return errors.Is(err, syscall.ERROR_ACCESS_DENIED)
	}
	_ = p.Release()
	return true
}
