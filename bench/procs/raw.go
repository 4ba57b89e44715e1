package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// heartbeatEvery is the agents' default heartbeat interval, which the raw
// idle processes wake at.
const heartbeatEvery = 5 * time.Second

// rawStart starts n `bin args...` processes the way the agents are
// started and returns how long until the last one exited, and the CPU
// they used: with `switchboard version`, the floor of starting n
// processes of this binary on this machine; with the idle program told
// to exit at once, the floor of starting n Go processes at all.
func rawStart(ctx context.Context, n int, env []string, bin string, args ...string) (time.Duration, time.Duration, error) {
	begin := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var cpu time.Duration
	errs := make(chan error, n)
	for range n {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			return 0, 0, fmt.Errorf("start %s: %w", cmd, err)
		}
		wg.Go(func() {
			if err := cmd.Wait(); err != nil {
				errs <- err
			}
			mu.Lock()
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			mu.Unlock()
		})
	}
	wg.Wait()
	took := time.Since(begin)
	close(errs)
	for err := range errs {
		return took, cpu, fmt.Errorf("%s %v: %w", bin, args, err)
	}
	return took, cpu, nil
}

// rawIdle starts n processes that only wake every heartbeat interval,
// waits settle, and returns the CPU they used over window, in
// nanoseconds: the floor of n idle agent processes.
func rawIdle(ctx context.Context, idleBin string, n int, settle, window time.Duration) (int64, error) {
	var cmds []*exec.Cmd
	defer func() {
		for _, c := range cmds {
			_ = c.Process.Signal(syscall.SIGTERM)
		}
		for _, c := range cmds {
			_ = c.Wait()
		}
	}()
	pids := make([]int, 0, n)
	for range n {
		c := exec.Command(idleBin, heartbeatEvery.String())
		if err := c.Start(); err != nil {
			return 0, err
		}
		cmds = append(cmds, c)
		pids = append(pids, c.Process.Pid)
	}
	if err := sleep(ctx, settle); err != nil {
		return 0, err
	}
	before := cpuNanos(pids)
	if err := sleep(ctx, window); err != nil {
		return 0, err
	}
	return cpuNanos(pids) - before, nil
}

// rawChild is one raw process whose stdout lines the bench waits for.
type rawChild struct {
	cmd   *exec.Cmd
	lines chan string
}

// startRawChild starts `self child args...` and waits for its "ready".
func startRawChild(ctx context.Context, self string, args ...string) (*rawChild, error) {
	cmd := exec.Command(self, append([]string{childArg}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &rawChild{cmd: cmd, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	select {
	case l, ok := <-c.lines:
		if !ok || l != "ready" {
			c.stop()
			return nil, fmt.Errorf("raw %s did not start", args[0])
		}
	case <-time.After(time.Minute):
		c.stop()
		return nil, fmt.Errorf("raw %s did not start within a minute", args[0])
	case <-ctx.Done():
		c.stop()
		return nil, ctx.Err()
	}
	return c, nil
}

// await waits for the line want.
func (c *rawChild) await(ctx context.Context, want string) (time.Time, error) {
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return time.Time{}, fmt.Errorf("raw process ended")
			}
			if l == want {
				return time.Now(), nil
			}
		case <-time.After(10 * time.Second):
			return time.Time{}, fmt.Errorf("raw process did not see %q within 10s", want)
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

func (c *rawChild) stop() {
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

// rawFileLatency creates sends files, one at a time, in a folder a raw
// process watches with fsnotify, as a delivery does (written beside,
// synced, linked in, the folder synced), and returns the time from the
// start of each to the watcher's line.
func rawFileLatency(ctx context.Context, self, dir string, sends int, gap time.Duration) ([]time.Duration, error) {
	inbox, staging := filepath.Join(dir, "inbox"), filepath.Join(dir, "tmp")
	for _, d := range []string{inbox, staging} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	c, err := startRawChild(ctx, self, "watch", inbox)
	if err != nil {
		return nil, err
	}
	defer c.stop()
	payload := make([]byte, 500)
	var out []time.Duration
	for i := range sends {
		name := fmt.Sprintf("%06d.msg.json", i)
		begin := time.Now()
		if err := createLinked(staging, inbox, name, payload); err != nil {
			return nil, err
		}
		at, err := c.await(ctx, name)
		if err != nil {
			return nil, err
		}
		out = append(out, at.Sub(begin))
		if err := sleep(ctx, gap); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// createLinked writes data to staging/name, syncs it, links it into
// inbox and syncs inbox.
func createLinked(staging, inbox, name string, data []byte) error {
	tmp := filepath.Join(staging, name)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	f.Close()
	if err := os.Link(tmp, filepath.Join(inbox, name)); err != nil {
		return err
	}
	os.Remove(tmp)
	d, err := os.Open(inbox)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
