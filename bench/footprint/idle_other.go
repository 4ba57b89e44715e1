//go:build !linux

package main

import (
	"context"
	"errors"
	"time"
)

// idleSupported reports whether this platform can measure an idle agent:
// only Linux, which has /proc/PID/smaps_rollup.
const idleSupported = false

// idleMemory is what an idle agent holds (measured on Linux only).
type idleMemory struct {
	name                 string
	rss, pss, anon, file int64
	threads              int
}

// measureIdle is not available here.
func measureIdle(context.Context, string, subject, time.Duration) (idleMemory, error) {
	return idleMemory{}, errors.New("idle memory is measured on Linux only")
}
