package main

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"
)

// throughputRun is the outcome of one throughput run.
type throughputRun struct {
	fsync    bool
	n, size  int
	sendTime time.Duration // first send started -> last Deliver returned
	e2eTime  time.Duration // first send started -> last message off the bus
	rawTime  time.Duration // rawOps for n files of the same size
	load     dist          // latency of each message under this load
	res      childResult
}

// throughput sends n messages back to back from one sender to one
// receiver and, in the same run, times the raw file operations beneath a
// delivery on the same disk.
func (e *runEnv) throughput(ctx context.Context) error {
	n := e.opts.count(defaultThroughputN)
	var runs []throughputRun
	for _, fsync := range e.opts.durabilities() {
		r, err := e.throughputOnce(ctx, n, fsync)
		if err != nil {
			return fmt.Errorf("%s: %w", onOff(fsync), err)
		}
		runs = append(runs, r)
	}
	tw := e.table(fmt.Sprintf("throughput: one sender -> one receiver, %d messages back to back", n),
		"durability", "file", "sent", "received", "MB/s", "raw ops", "received/raw", "lat p50", "lat p99", "dup")
	for _, r := range runs {
		row(tw, onOff(r.fsync), strconv.Itoa(r.size)+" B", perSec(r.n, r.sendTime), perSec(r.n, r.e2eTime),
			mbPerSec(r.n, r.size, r.e2eTime), perSec(r.n, r.rawTime),
			fmt.Sprintf("%.0f%%", 100*r.rawTime.Seconds()/r.e2eTime.Seconds()),
			ms(r.load.p50), ms(r.load.p99), strconv.Itoa(r.res.Duplicates))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.out, "  sent: rate of the sender's Deliver calls; received: messages off the receiver's bus per second, first send to last receipt;")
	fmt.Fprintln(e.out, "  raw ops: create+write+fsync+link+fsync dir (fsync off: create+write+link) of the same bytes, same disk, same run;")
	fmt.Fprintln(e.out, "  lat: per-message latency while the sender runs flat out (queueing included)")
	return nil
}

// throughputOnce runs one throughput measurement in fresh trees.
func (e *runEnv) throughputOnce(ctx context.Context, n int, fsync bool) (throughputRun, error) {
	out := throughputRun{fsync: fsync, n: n}
	name := "throughput-" + strconv.FormatBool(fsync)
	root, err := e.tree(name)
	if err != nil {
		return out, err
	}
	s, err := openSender(root, fsync, e.opts.size)
	if err != nil {
		return out, err
	}
	defer s.close()
	out.size = s.fileBytes()
	rawDir, err := e.tree(name + "-raw")
	if err != nil {
		return out, err
	}
	raw, err := rawOps(ctx, rawDir, n, bytes.Repeat([]byte{'m'}, out.size), fsync)
	out.rawTime = total(raw)
	if err != nil {
		return out, fmt.Errorf("raw file operations: %w", err)
	}
	rx, err := startReceiver(ctx, childOptions{root: root, n: n, fsync: fsync, record: true,
		timeout: e.opts.timeout, cpuprofile: e.profile(name)})
	if err != nil {
		return out, err
	}
	defer rx.kill()
	start := time.Now()
	for seq := range n {
		if _, _, err := s.send(ctx, seq); err != nil {
			return out, err
		}
	}
	out.sendTime = time.Since(start)
	res, err := rx.finish(ctx)
	if err != nil {
		return out, err
	}
	out.e2eTime = time.Duration(res.LastNs - start.UnixNano())
	out.load, out.res = summarise(res.LatencyNs), res
	return out, nil
}
