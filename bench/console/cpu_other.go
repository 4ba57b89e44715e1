//go:build !linux

package main

import "time"

// cpuSoFar is not known for a running process here: only the total.
func cpuSoFar(int) (time.Duration, bool) { return 0, false }
