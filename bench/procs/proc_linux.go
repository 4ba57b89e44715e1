package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuSupported reports whether cpuNanos works here.
const cpuSupported = true

// cpuNanos returns the CPU time the processes used so far, in
// nanoseconds: the sum over their threads of /proc/PID/task/TID/schedstat
// (exact, unlike the clock ticks of /proc/PID/stat, which lose up to a
// tick per process per reading). A process gone is left out.
func cpuNanos(pids []int) int64 {
	var sum int64
	for _, pid := range pids {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
		for _, t := range tasks {
			data, err := os.ReadFile(t)
			if err != nil {
				continue
			}
			if f := strings.Fields(string(data)); len(f) > 0 {
				if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					sum += ns
				}
			}
		}
	}
	return sum
}

// inotifyInstances counts the inotify instances the processes hold.
func inotifyInstances(pids []int) int {
	n := 0
	for _, pid := range pids {
		dir := fmt.Sprintf("/proc/%d/fd", pid)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if link, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && link == "anon_inode:inotify" {
				n++
			}
		}
	}
	return n
}

// inotifyLimit returns fs.inotify.max_user_instances, or -1.
func inotifyLimit() int {
	f, err := os.Open("/proc/sys/fs/inotify/max_user_instances")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if sc.Scan() {
		if n, err := strconv.Atoi(strings.TrimSpace(sc.Text())); err == nil {
			return n
		}
	}
	return -1
}

// loadAvg is the machine's load average over 1, 5 and 15 minutes, as
// /proc/loadavg says it; "" when it cannot be read.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
