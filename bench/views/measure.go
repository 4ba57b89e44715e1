package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// timeBin is GNU time, which reports the peak RSS of the command it runs
// from a fork of its own small process.
const timeBin = "/usr/bin/time"

// timeMark starts the line of timeBin's figures, which may follow a
// line of the runtime's trace that the exit cut short.
const timeMark = "views-bench-time:"

// result is the measurements of one view with one binary.
type result struct {
	first    time.Duration
	firstRSS int64 // bytes, the peak of the first run
	walls    []time.Duration
	peakRSS  int64   // bytes, the largest of the timed runs
	heaps    []int64 // MB, the largest Go heap of each timed run (see gcPeak)
	lines    int     // lines of output of the last run
}

func (r result) median() time.Duration {
	s := slices.Clone(r.walls)
	slices.Sort(s)
	return s[len(s)/2]
}

// heap returns the median over the timed runs of their peak Go heap, in
// MB: one run starved of CPU by a busy machine can overshoot a lot.
func (r result) heap() int64 {
	s := slices.Clone(r.heaps)
	slices.Sort(s)
	return s[len(s)/2]
}

func (r result) min() time.Duration { return slices.Min(r.walls) }
func (r result) max() time.Duration { return slices.Max(r.walls) }

// rssSource says where the peak RSS comes from.
func rssSource() string {
	if _, err := os.Stat(timeBin); err == nil {
		return "peak RSS from " + timeBin
	}
	return "peak RSS from rusage: includes this harness's own peak, as exec inherits it"
}

// measure runs bin with args against root once untimed-for-the-median,
// then runs times. cache is the user cache folder the runs are given
// (XDG_CACHE_HOME): one per binary, so that binaries with different
// index formats do not rebuild each other's.
func measure(ctx context.Context, bin, cache, root string, args []string, runs int) (result, error) {
	var res result
	for i := 0; i <= runs; i++ {
		wall, rss, heap, lines, err := runOnce(ctx, bin, cache, root, args)
		if err != nil {
			return res, err
		}
		res.lines = lines
		if i == 0 {
			res.first, res.firstRSS = wall, rss
			continue
		}
		res.peakRSS, res.heaps = max(res.peakRSS, rss), append(res.heaps, heap)
		res.walls = append(res.walls, wall)
	}
	return res, nil
}

// runOnce runs one view and returns its wall time, peak RSS, peak Go
// heap in MB and number of output lines.
func runOnce(ctx context.Context, bin, cache, root string, args []string) (wall time.Duration, rss, heap int64, lines int, err error) {
	full := append([]string{"--root", root}, args...)
	_, useTime := os.Stat(timeBin)
	var cmd *exec.Cmd
	if useTime == nil {
		cmd = exec.CommandContext(ctx, timeBin, append([]string{"-f", "\n" + timeMark + " %e %M", bin}, full...)...)
	} else {
		cmd = exec.CommandContext(ctx, bin, full...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "COLUMNS=160", "NO_COLOR=1", "XDG_CACHE_HOME="+cache, "GODEBUG=gctrace=1")
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("%v: %w: %s", full, err, lastLine(stderr.String()))
	}
	lines = bytes.Count(stdout.Bytes(), []byte("\n"))
	heap = gcPeak(stderr.String())
	if useTime != nil {
		return wall, maxRSS(cmd.ProcessState), heap, lines, nil
	}
	_, after, _ := strings.Cut(stderr.String()[max(0, strings.LastIndex(stderr.String(), timeMark)):], timeMark)
	fields := strings.Fields(after)
	if len(fields) != 2 {
		return 0, 0, 0, 0, fmt.Errorf("%v: unexpected output of %s: %q", full, timeBin, lastLine(stderr.String()))
	}
	kb, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("%v: %s: %w", full, timeBin, err)
	}
	return wall, kb * 1024, heap, lines, nil
}

// gcHeap matches the heap sizes of a GODEBUG=gctrace=1 line: at the
// start of the collection, at its end, and live after it, in MB.
var gcHeap = regexp.MustCompile(`(\d+)->(\d+)->(\d+) MB`)

// gcPeak returns the largest Go heap, in MB, that the collections traced
// in stderr saw; 4 (the first collection's target) when none ran.
func gcPeak(stderr string) int64 {
	peak := int64(4)
	for _, m := range gcHeap.FindAllStringSubmatch(stderr, -1) {
		for _, v := range m[1:3] {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				peak = max(peak, n)
			}
		}
	}
	return peak
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
