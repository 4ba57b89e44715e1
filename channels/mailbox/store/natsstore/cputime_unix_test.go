//go:build unix

package natsstore_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process (the clients and the embedded
// server) has used so far. CPU per message varies less than wall time
// when other programs load the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
