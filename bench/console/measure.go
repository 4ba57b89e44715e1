package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// result is what one binary cost.
type result struct {
	cpu, wall time.Duration
	// load is the CPU time of the page's first state (the console's
	// start and its first read of every message); loadKnown says whether
	// it could be read apart (Linux).
	load       time.Duration
	loadKnown  bool
	arriving   time.Duration // the wall time messages arrived
	reads      int
	events     int
	stateBytes int64
}

// token is the console's token in every run.
const token = "0123456789abcdef0123456789abcdef"

// measure runs the console of bin on a fresh tree under root with one
// page open while messages arrive, and returns its cost.
func measure(ctx context.Context, bin, root string, o options) (result, error) {
	var r result
	if err := buildTree(ctx, root, o.n); err != nil {
		return r, fmt.Errorf("tree: %w", err)
	}
	cmd := exec.CommandContext(ctx, bin, "--root", root, "console", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "SWITCHBOARD_CONSOLE_TOKEN="+token, "XDG_CACHE_HOME="+root+".cache")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return r, err
	}
	cmd.Stderr = os.Stderr
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return r, fmt.Errorf("console did not print its address: %w", err)
	}
	addr, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "console "), "#")
	addr = strings.TrimSuffix(addr, "/")

	pageCtx, closePage := context.WithCancel(ctx)
	p := &page{base: addr}
	loaded := make(chan struct{})
	pageDone := make(chan error, 1)
	go func() { pageDone <- p.open(pageCtx, loaded) }()
	select {
	case <-loaded:
	case err := <-pageDone:
		closePage()
		return r, fmt.Errorf("page: %w", err)
	case <-time.After(5 * time.Minute):
		closePage()
		return r, errors.New("the page's first state did not come within 5 minutes")
	}
	r.load, r.loadKnown = cpuSoFar(cmd.Process.Pid)
	deliverStart := time.Now()
	if err := deliver(ctx, root, o.rate, o.dur); err != nil {
		closePage()
		return r, err
	}
	r.arriving = time.Since(deliverStart)
	closePage()
	<-pageDone
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return r, err
	}
	if err := cmd.Wait(); err != nil {
		return r, fmt.Errorf("console: %w", err)
	}
	r.wall = time.Since(began)
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r.reads, r.events, r.stateBytes = p.counts()
	return r, nil
}

// deliver puts rate messages a second into the first agent's inbox for
// dur, as agents sending to it would.
func deliver(ctx context.Context, root string, rate float64, dur time.Duration) error {
	st, err := fsstore.Open(fsstore.Options{Root: root, NoSync: true})
	if err != nil {
		return err
	}
	defer st.Close()
	every := time.Duration(float64(time.Second) / rate)
	t := time.NewTicker(every)
	defer t.Stop()
	end := time.Now().Add(dur)
	for i := 0; time.Now().Before(end); i++ {
		from := agents[1+i%9]
		m := &envelope.Message{ID: envelope.NewID(), From: from, To: agents[0], Type: envelope.TypeMessage, TTL: 3,
			Trace: []string{from}, Timestamp: envelope.NewTime(time.Now()),
			Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(fmt.Sprintf("message %d", i))}}}
		if err := st.Deliver(ctx, m); err != nil {
			return fmt.Errorf("deliver: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}
