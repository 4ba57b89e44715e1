package natsstore_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process (the clients and the embedded
// server) has used so far, kernel and user.
func cpuTime() time.Duration {
	var creation, exit, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err == nil {
		err = syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user)
	}
	if err != nil {
		return 0
	}
	ticks := func(ft syscall.Filetime) int64 { // 100 ns units
		return int64(ft.HighDateTime)<<32 | int64(ft.LowDateTime)
	}
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
