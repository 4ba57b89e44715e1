package main

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// dist summarises a set of durations.
type dist struct {
	n                       int
	p50, p90, p99, max, min time.Duration
}

// summarise sorts a copy of ns (nanoseconds) and takes nearest-rank
// percentiles.
func summarise(ns []int64) dist {
	if len(ns) == 0 {
		return dist{}
	}
	s := slices.Clone(ns)
	slices.Sort(s)
	at := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return time.Duration(s[max(0, min(i, len(s)-1))])
	}
	return dist{n: len(s), p50: at(0.50), p90: at(0.90), p99: at(0.99),
		max: time.Duration(s[len(s)-1]), min: time.Duration(s[0])}
}

// ms formats d in milliseconds.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond))
}

// perSec formats n events over d as a rate.
func perSec(n int, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f/s", float64(n)/d.Seconds())
}

// mbPerSec formats n events of size bytes over d in MB/s (10^6 bytes).
func mbPerSec(n, size int, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f MB/s", float64(n)*float64(size)/1e6/d.Seconds())
}

// mib formats bytes in MiB.
func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// total adds up durations in nanoseconds.
func total(ns []int64) time.Duration {
	var t int64
	for _, v := range ns {
		t += v
	}
	return time.Duration(t)
}
