package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// idleSupported reports whether this platform can measure an idle agent
// (it reads /proc).
const idleSupported = true

// listenTimeout bounds the wait for recv to say it listens.
const listenTimeout = 30 * time.Second

// idleMemory is what an idle agent holds, from /proc/PID/smaps_rollup and
// /proc/PID/status, in bytes.
type idleMemory struct {
	name                 string
	rss, pss, anon, file int64
	threads              int
}

// measureIdle starts `recv idle` of b on a fresh folder store, waits until
// it listens and settle more, reads its memory and stops it with SIGTERM
// (it must then exit 0).
func measureIdle(ctx context.Context, dir string, b subject, settle time.Duration) (idleMemory, error) {
	m := idleMemory{name: b.name}
	root := filepath.Join(dir, b.name+"-idle-root")
	cmd := exec.CommandContext(ctx, b.path, "recv", "idle", "--root", root)
	cmd.Env = isolatedEnv(dir)
	// recv says "listening as ..." on stderr once it is registered.
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return m, err
	}
	if err := cmd.Start(); err != nil {
		return m, err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	listening := make(chan error, 1)
	var stderr limitedBuffer // what recv wrote to stderr after the first line
	go func() {
		lines := bufio.NewReader(errPipe)
		first, err := lines.ReadString('\n')
		if err == nil && !strings.HasPrefix(first, "listening as") {
			err = fmt.Errorf("unexpected first line %q", first)
		}
		listening <- err
		_, _ = io.Copy(&stderr, lines)
	}()
	select {
	case err := <-listening:
		if err != nil {
			return m, fmt.Errorf("recv did not start listening: %w", err)
		}
	case <-time.After(listenTimeout):
		return m, fmt.Errorf("recv did not start listening within %s", listenTimeout)
	case <-ctx.Done():
		return m, ctx.Err()
	}
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return m, ctx.Err()
	}
	pid := cmd.Process.Pid
	rollup, err := procFields(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return m, err
	}
	status, err := procFields(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, err
	}
	m.rss, m.pss = rollup["Rss"]*1024, rollup["Pss"]*1024
	m.anon, m.file = rollup["Anonymous"]*1024, rollup["Pss_File"]*1024
	m.threads = int(status["Threads"])
	stopped = true
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return m, err
	}
	if err := cmd.Wait(); err != nil {
		return m, fmt.Errorf("recv after SIGTERM: %w", err)
	}
	return m, nil
}

// procFields reads the "Name: number [kB]" lines of a /proc file.
func procFields(path string) (map[string]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fields := map[string]int64{}
	for line := range strings.SplitSeq(string(data), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			fields[name] = n
		}
	}
	if len(fields) == 0 {
		return nil, errors.New(path + ": no fields")
	}
	return fields, nil
}
