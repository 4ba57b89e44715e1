package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// nanobotScript is nanobot's mailbox algorithm (send, poll,
// mark_processed) in Python, written into the work folder of each run.
//
//go:embed nanobot_algo.py
var nanobotScript []byte

// switchboardPackage is the command the side-by-side mode builds when no
// -switchboard binary is given.
const switchboardPackage = "github.com/switchboard-dev/switchboard/cmd/switchboard"

// procTimes is what one external process took: wall time from its start
// to its exit, and the algorithm's own time where the process reports it.
type procTimes struct {
	process time.Duration
	algo    time.Duration
}

// tools are the external programs of the side-by-side mode.
type tools struct {
	python      string // python3
	script      string // nanobot_algo.py in the work folder
	switchboard string // the switchboard binary
	home        string // an empty home folder: no ~/.nanobot/config.json
}

// prepareTools finds python3, writes the script, and builds (or takes)
// the switchboard binary.
func (e *runEnv) prepareTools(ctx context.Context) (*tools, error) {
	t := &tools{script: filepath.Join(e.work, "nanobot_algo.py"), home: filepath.Join(e.work, "home")}
	var err error
	if t.python, err = exec.LookPath(e.opts.python); err != nil {
		return nil, fmt.Errorf("%s not found (%w): the nanobot mode runs nanobot's algorithm with it; install Python 3 or give -python PATH", e.opts.python, err)
	}
	if err := os.WriteFile(t.script, nanobotScript, 0o600); err != nil {
		return nil, err
	}
	if err := os.Mkdir(t.home, 0o700); err != nil {
		return nil, err
	}
	if t.switchboard, err = e.switchboardBinary(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// switchboardBinary returns the switchboard binary to time: -switchboard,
// else a go build of this module's cmd/switchboard in the work folder.
func (e *runEnv) switchboardBinary(ctx context.Context) (string, error) {
	if e.opts.switchboard != "" {
		return e.opts.switchboard, nil
	}
	bin := filepath.Join(e.work, "switchboard")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, switchboardPackage)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s (run inside the module, or give -switchboard PATH): %w\n%s",
			switchboardPackage, err, out)
	}
	return bin, nil
}

// nanobot runs one operation of the script (write or drain) and returns
// its process time and the algorithm's own time.
func (t *tools) nanobot(ctx context.Context, args ...string) (procTimes, error) {
	cmd := exec.CommandContext(ctx, t.python, append([]string{t.script}, args...)...)
	cmd.Env = t.environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return procTimes{}, fmt.Errorf("nanobot_algo.py %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	var res struct {
		Seconds float64 `json:"seconds"`
	}
	line := strings.TrimSpace(stdout.String())
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		return procTimes{}, fmt.Errorf("nanobot_algo.py %s: unreadable result %q: %w", args[0], line, err)
	}
	return procTimes{process: took, algo: time.Duration(res.Seconds * float64(time.Second))}, nil
}

// recv runs `switchboard --root root recv AGENT --count n` to the end and
// returns its process time; fsync false sets
// NANOBOT_CHANNELS__MAILBOX__FSYNC=false, as a user would. The receiving
// rate limit (limits.perSender) is turned off, as nanobot has none: the
// backlog was written by one sender in a few seconds, which the default
// limit would set aside as a flood.
func (t *tools) recv(ctx context.Context, root string, n int, fsync bool) (procTimes, error) {
	cmd := exec.CommandContext(ctx, t.switchboard, "--root", root, "recv", receiverID, "--count", strconv.Itoa(n))
	cmd.Env = append(t.environ(), "NANOBOT_CHANNELS__MAILBOX__LIMITS__PER_SENDER__RATE=0")
	if !fsync {
		cmd.Env = append(cmd.Env, "NANOBOT_CHANNELS__MAILBOX__FSYNC=false")
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr // stdout: the null device
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return procTimes{}, fmt.Errorf("switchboard recv: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return procTimes{process: took}, nil
}

// environ is the environment of the external programs: this process's,
// without NANOBOT_ settings and with an empty home, so that no user
// config changes what is measured.
func (t *tools) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "NANOBOT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "USERPROFILE=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+t.home, "USERPROFILE="+t.home)
}
