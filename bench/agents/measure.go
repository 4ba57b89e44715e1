package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"
)

// eventDrivenLimit is the delivery time under which a message counts as
// carried by fsnotify: the rescan runs every 5 s, so a message it finds
// waits 2.5 s on average and is under this limit one time in five.
const eventDrivenLimit = time.Second

// report is what one run measured.
type report struct {
	n           int
	started     time.Duration // to start every agent
	idle        time.Duration // measured idle period
	cpu         time.Duration // user + system CPU of the process over idle
	regWrites   int           // _registry.json replaced during idle
	inotify     int           // inotify instances the agents hold (-1: not Linux)
	fsnotifyOff int           // "fsnotify unavailable" warnings
	latencies   []time.Duration
	slow        int // latencies over eventDrivenLimit
	goroutines  int
}

// measure starts the agents, measures them idle, then delivers to each.
func measure(ctx context.Context, o options, stderr io.Writer) (*report, error) {
	dir, err := os.MkdirTemp(o.root, "switchboard-agents-*")
	if err != nil {
		return nil, err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	}
	root := filepath.Join(dir, "mailboxes")
	logs := &warnCounter{out: stderr}
	r := &report{n: o.n}

	t0 := time.Now()
	team, err := startTeam(ctx, root, o.n, logs)
	if err != nil {
		return nil, err
	}
	defer team.stop()
	r.started = time.Since(t0)
	r.inotify = inotifyInstances()
	if err := sleep(ctx, o.warmup); err != nil {
		return nil, err
	}

	writes, err := countRegistryWrites(root)
	if err != nil {
		return nil, err
	}
	cpu0, wall0 := processCPU(), time.Now()
	if err := sleep(ctx, o.idle); err != nil {
		return nil, err
	}
	r.cpu, r.idle = processCPU()-cpu0, time.Since(wall0)
	r.regWrites = writes.stop()
	r.goroutines = runtime.NumGoroutine()

	if r.latencies, err = team.deliverToEach(ctx, root); err != nil {
		return nil, err
	}
	for _, l := range r.latencies {
		if l > eventDrivenLimit {
			r.slow++
		}
	}
	r.fsnotifyOff = logs.count()
	return r, nil
}

func (r *report) eventDriven() bool { return r.slow == 0 }

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "machine          %s/%s, %d CPUs, %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	fmt.Fprintf(w, "agents           %d mailbox channels in one process, started in %s\n", r.n, r.started.Round(time.Millisecond))
	if r.inotify >= 0 {
		fmt.Fprintf(w, "inotify          %d instance(s) held by the agents\n", r.inotify)
	}
	fmt.Fprintf(w, "fsnotify off     %d warning(s) \"fsnotify unavailable\"\n", r.fsnotifyOff)
	fmt.Fprintf(w, "goroutines       %d\n", r.goroutines)
	if r.idle > 0 {
		pct := 100 * r.cpu.Seconds() / r.idle.Seconds()
		fmt.Fprintf(w, "idle CPU         %s over %s = %.2f %% of one core\n", r.cpu.Round(time.Millisecond), r.idle.Round(time.Millisecond), pct)
		fmt.Fprintf(w, "registry writes  %d in %s = %.2f per second\n", r.regWrites, r.idle.Round(time.Millisecond), float64(r.regWrites)/r.idle.Seconds())
	}
	l := slices.Clone(r.latencies)
	slices.Sort(l)
	at := func(q float64) time.Duration { return l[min(len(l)-1, int(q*float64(len(l))))] }
	if len(l) > 0 {
		fmt.Fprintf(w, "delivery         one message to each agent: p50 %s, p99 %s, max %s; %d of %d within %s (event-driven)\n",
			at(0.5).Round(10*time.Microsecond), at(0.99).Round(10*time.Microsecond), l[len(l)-1].Round(10*time.Microsecond),
			len(l)-r.slow, len(l), eventDrivenLimit)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
}
