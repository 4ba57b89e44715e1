//go:build unix && !darwin

package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident memory of a finished process, in bytes (0
// when unknown). Linux and the BSDs report kilobytes.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return int64(ru.Maxrss) * 1024
	}
	return 0
}
