package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// clockTicks is the unit of /proc/PID/stat's times (USER_HZ, 100 on
// every Linux port).
const clockTicks = 100

// cpuSoFar returns the user and system CPU time the running process pid
// used so far (ok false when it cannot be read).
func cpuSoFar(pid int) (time.Duration, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: the fields
	// after it start at utime, field 14 of the line.
	_, rest, ok := strings.Cut(string(data), ") ")
	if !ok {
		return 0, false
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, false
	}
	var user, sys int64
	if _, err := fmt.Sscan(f[11], &user); err != nil {
		return 0, false
	}
	if _, err := fmt.Sscan(f[12], &sys); err != nil {
		return 0, false
	}
	return time.Duration(user+sys) * time.Second / clockTicks, true
}
