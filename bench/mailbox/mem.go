package main

import (
	"runtime"
	"sync/atomic"
	"time"
)

// memPeak is the most memory the receiver used, sampled.
type memPeak struct {
	HeapInuse uint64 `json:"heap_inuse"` // peak runtime.MemStats.HeapInuse
	HeapSys   uint64 `json:"heap_sys"`   // peak runtime.MemStats.HeapSys
	Sys       uint64 `json:"sys"`        // peak runtime.MemStats.Sys
	MaxRSS    int64  `json:"max_rss"`    // peak resident set size, in bytes (0 if unknown)
	Samples   int    `json:"samples"`
	// ByTenth[i] is the peak HeapInuse while the i-th tenth of the
	// messages was being received: flat when memory does not grow with
	// the number of messages handled.
	ByTenth [10]uint64 `json:"by_tenth"`
}

// memSampler reads runtime.MemStats periodically and keeps the peaks.
type memSampler struct {
	quit chan struct{}
	done chan memPeak
}

// startMemSampler samples every interval until finish; done counts the
// messages received so far, of n.
func startMemSampler(every time.Duration, done *atomic.Int64, n int) *memSampler {
	m := &memSampler{quit: make(chan struct{}), done: make(chan memPeak, 1)}
	go func() {
		var peak memPeak
		var ms runtime.MemStats
		sample := func() {
			runtime.ReadMemStats(&ms)
			peak.HeapInuse = max(peak.HeapInuse, ms.HeapInuse)
			peak.HeapSys = max(peak.HeapSys, ms.HeapSys)
			peak.Sys = max(peak.Sys, ms.Sys)
			peak.Samples++
			tenth := min(9, int(done.Load()*10/int64(max(n, 1))))
			peak.ByTenth[tenth] = max(peak.ByTenth[tenth], ms.HeapInuse)
		}
		t := time.NewTicker(every)
		defer t.Stop()
		sample()
		for {
			select {
			case <-t.C:
				sample()
			case <-m.quit:
				sample()
				peak.MaxRSS = maxRSS()
				m.done <- peak
				return
			}
		}
	}()
	return m
}

// finish stops sampling and returns the peaks.
func (m *memSampler) finish() memPeak {
	close(m.quit)
	return <-m.done
}
