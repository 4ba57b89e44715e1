//go:build !linux

package main

// cpuSupported reports whether cpuNanos works here: it needs linux's
// /proc.
const cpuSupported = false

func cpuNanos([]int) int64       { return 0 }
func inotifyInstances([]int) int { return -1 }
func inotifyLimit() int          { return -1 }

// loadAvg is "" where /proc/loadavg does not exist.
func loadAvg() string { return "" }
