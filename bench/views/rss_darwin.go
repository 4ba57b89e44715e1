package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident memory of a finished process, in bytes (0
// when unknown). macOS reports bytes.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return int64(ru.Maxrss)
	}
	return 0
}
