package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// startCase is one command line whose start is timed.
type startCase struct {
	label string // hello, switchboard version, ...
	argv  []string
}

// startResult is the median cost of one command line.
type startResult struct {
	label string
	wall  time.Duration // median time from exec to exit
	cpu   time.Duration // median user+system CPU time of the process
}

// measureStarts runs every case runs times, one of each in turn (so that
// a change of load touches all alike), and returns the medians. The sends
// go to a fresh folder store under dir, with HOME pointed there so that no
// user config applies.
func measureStarts(ctx context.Context, dir string, hello subject, bins []subject, runs int) ([]startResult, error) {
	cases := []startCase{{label: "hello", argv: []string{hello.path}}}
	for _, b := range bins {
		root := filepath.Join(dir, b.name+"-send-root")
		cases = append(cases,
			startCase{label: b.name + " version", argv: []string{b.path, "version"}},
			startCase{label: b.name + " send", argv: []string{b.path, "send", "--root", root,
				"--from", "bench", "--to", "sink", "--new", "--text", "x"}})
	}
	env := isolatedEnv(dir)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	walls := make([][]time.Duration, len(cases))
	cpus := make([][]time.Duration, len(cases))
	for range runs {
		for i, c := range cases {
			wall, cpu, err := runOnce(ctx, c.argv, env, null)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.label, err)
			}
			walls[i] = append(walls[i], wall)
			cpus[i] = append(cpus[i], cpu)
		}
	}
	out := make([]startResult, len(cases))
	for i, c := range cases {
		out[i] = startResult{label: c.label, wall: median(walls[i]), cpu: median(cpus[i])}
	}
	return out, nil
}

// runOnce starts argv, waits for it and returns its wall and CPU time; a
// non-zero exit is an error.
func runOnce(ctx context.Context, argv, env []string, null *os.File) (wall, cpu time.Duration, err error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout = null
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	err = cmd.Run()
	wall = time.Since(t0)
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s", err, stderr.String())
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// isolatedEnv is the environment of the measured commands: HOME is under
// dir (no user config file), NANOBOT_ variables are dropped.
func isolatedEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "NANOBOT_") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		env = append(env, kv)
	}
	// The send case sends to one agent again and again, past perEdge's
	// burst: its rate limit is off.
	return append(env, "HOME="+filepath.Join(dir, "home"), "NANOBOT_CHANNELS__MAILBOX__LIMITS__PER_EDGE__RATE=0")
}

// median returns the middle of ds (which it sorts).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// limitedBuffer keeps the first 4 KiB written to it: enough of a failed
// command's stderr to say why.
type limitedBuffer struct{ b []byte }

// Write keeps what fits and reports everything written.
func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// String returns what was kept.
func (l *limitedBuffer) String() string { return string(l.b) }
