package main

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// backlogRun is the outcome of one backlog run.
type backlogRun struct {
	fsync     bool
	n         int
	writeTime time.Duration // pre-writing the backlog (setup, not a target)
	spawned   time.Time     // the receiver process was started
	res       childResult
}

// backlog pre-writes a backlog into an inbox, then starts the receiver
// and times the first delivery and the drain, and samples its memory; the
// same with a tenth of the backlog shows whether memory grows with it.
func (e *runEnv) backlog(ctx context.Context) error {
	n := e.opts.count(defaultBacklogN)
	sizes := []int{n}
	if n/10 > 0 {
		sizes = []int{n / 10, n}
	}
	var runs []backlogRun
	for _, fsync := range e.opts.durabilities() {
		for _, size := range sizes {
			r, err := e.backlogOnce(ctx, size, fsync)
			if err != nil {
				return fmt.Errorf("%s, %d messages: %w", onOff(fsync), size, err)
			}
			runs = append(runs, r)
		}
	}
	tw := e.table("backlog: messages waiting in the inbox before the receiver starts",
		"durability", "backlog", "Start()", "first after Start", "first after exec", "drain", "drain time",
		"peak heap inuse", "peak sys", "max rss", "dup")
	for _, r := range runs {
		res := r.res
		row(tw, onOff(r.fsync), strconv.Itoa(r.n),
			ms(time.Duration(res.StartedNs-res.StartNs)),
			ms(time.Duration(res.FirstNs-res.StartNs)),
			ms(time.Duration(res.FirstNs-r.spawned.UnixNano())),
			perSec(r.n, time.Duration(res.LastNs-res.StartNs)),
			fmt.Sprintf("%.2f s", time.Duration(res.LastNs-res.StartNs).Seconds()),
			mib(res.Mem.HeapInuse), mib(res.Mem.Sys), mib(uint64(res.Mem.MaxRSS)),
			strconv.Itoa(res.Duplicates))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.out, "  Start(): mailbox channel Start (open store and inbox, register); first: first message off the bus;")
	fmt.Fprintln(e.out, "  drain: backlog / (last message off the bus - Start); memory: the receiver process, sampled every 10 ms")
	tw = e.table("backlog memory: peak heap in use during each tenth of the drain (flat = bounded)",
		"durability", "backlog", "1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th")
	for _, r := range runs {
		cells := []string{onOff(r.fsync), strconv.Itoa(r.n)}
		for _, b := range r.res.Mem.ByTenth {
			cell := "-" // no sample fell in this tenth
			if b > 0 {
				cell = fmt.Sprintf("%.1f", float64(b)/(1<<20))
			}
			cells = append(cells, cell)
		}
		row(tw, cells...)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.out, "  (MiB)")
	for _, r := range runs {
		fmt.Fprintf(e.out, "  (setup: %d messages pre-written with NoSync Deliver at %s)\n", r.n, perSec(r.n, r.writeTime))
	}
	return nil
}

// backlogOnce fills a fresh inbox with n messages and drains it.
func (e *runEnv) backlogOnce(ctx context.Context, n int, fsync bool) (backlogRun, error) {
	out := backlogRun{fsync: fsync, n: n}
	name := fmt.Sprintf("backlog-%d-%t", n, fsync)
	root, err := e.tree(name)
	if err != nil {
		return out, err
	}
	start := time.Now()
	if err := e.prewrite(ctx, root, n); err != nil {
		return out, fmt.Errorf("pre-write: %w", err)
	}
	out.writeTime = time.Since(start)
	syncAll() // write the backlog out now, not while the receiver drains it
	rx, err := startReceiver(ctx, childOptions{root: root, n: n, fsync: fsync,
		timeout: e.opts.timeout, cpuprofile: e.profile(name)})
	if err != nil {
		return out, err
	}
	defer rx.kill()
	out.spawned = rx.spawned
	out.res, err = rx.finish(ctx)
	return out, err
}

// prewrite delivers n probes without fsync, from as many goroutines as
// there are CPUs.
func (e *runEnv) prewrite(ctx context.Context, root string, n int) error {
	s, err := openSender(root, false, e.opts.size)
	if err != nil {
		return err
	}
	defer s.close()
	workers := runtime.NumCPU()
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for seq := w; seq < n && errs[w] == nil; seq += workers {
				_, _, errs[w] = s.send(ctx, seq)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
