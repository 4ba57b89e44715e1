package main

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"time"
)

// latencyRun is the outcome of one latency run.
type latencyRun struct {
	fsync bool
	e2e   dist // send started -> InboundMessage off the receiver's bus
	call  dist // the sender's compose + Deliver call
	after dist // Deliver returned -> off the bus (negative: seen before Deliver returned)
	raw   dist // one raw operation of the same size, same disk, before each send
	res   childResult
}

// latency sends messages one at a time: each send waits until the
// receiver reported the previous message, then -gap more, so the figure is
// the latency of one message and not queueing behind others.
func (e *runEnv) latency(ctx context.Context) error {
	n := e.opts.count(defaultLatencyN)
	var runs []latencyRun
	for _, fsync := range e.opts.durabilities() {
		r, err := e.latencyOnce(ctx, n, fsync)
		if err != nil {
			return fmt.Errorf("%s: %w", onOff(fsync), err)
		}
		runs = append(runs, r)
	}
	tw := e.table(fmt.Sprintf("latency: send in one process -> InboundMessage on the bus of another (%d messages, one at a time, gap %s)", n, e.opts.gap),
		"durability", "p50", "p90", "p99", "max", "received", "dup")
	for _, r := range runs {
		row(tw, onOff(r.fsync), ms(r.e2e.p50), ms(r.e2e.p90), ms(r.e2e.p99), ms(r.e2e.max),
			strconv.Itoa(r.res.Received), strconv.Itoa(r.res.Duplicates))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	tw = e.table("latency breakdown: the sender's call, receipt after it returned, and the raw file operations beneath it",
		"durability", "send call p50", "send call p99", "after send p50", "after send p99", "raw p50", "raw p99")
	for _, r := range runs {
		row(tw, onOff(r.fsync), ms(r.call.p50), ms(r.call.p99), ms(r.after.p50), ms(r.after.p99),
			ms(r.raw.p50), ms(r.raw.p99))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.out, "  send call: compose + Deliver in the sender; after send: receipt minus the moment Deliver returned")
	fmt.Fprintln(e.out, "  (negative when the receiver had it before the sender's final fsync of the inbox returned);")
	fmt.Fprintln(e.out, "  raw: one create+write+fsync+link+fsync dir (fsync off: create+write+link) of the same bytes, same disk,")
	fmt.Fprintln(e.out, "  done before each send (so both see the disk in the same state)")
	return nil
}

// latencyOnce runs one latency measurement in a fresh tree.
func (e *runEnv) latencyOnce(ctx context.Context, n int, fsync bool) (latencyRun, error) {
	out := latencyRun{fsync: fsync}
	name := "latency-" + strconv.FormatBool(fsync)
	root, err := e.tree(name)
	if err != nil {
		return out, err
	}
	s, err := openSender(root, fsync, e.opts.size)
	if err != nil {
		return out, err
	}
	defer s.close()
	rawDir, err := e.tree(name + "-raw")
	if err != nil {
		return out, err
	}
	rw, err := newRawWriter(rawDir, bytes.Repeat([]byte{'m'}, s.fileBytes()), fsync)
	if err != nil {
		return out, err
	}
	rx, err := startReceiver(ctx, childOptions{root: root, n: n, fsync: fsync, lockstep: true,
		record: true, timeout: e.opts.timeout, cpuprofile: e.profile(name)})
	if err != nil {
		return out, err
	}
	defer rx.kill()
	call := make([]int64, n)
	done := make([]int64, n)
	raw := make([]int64, n)
	for seq := range n {
		// One raw operation per message, between the messages, so that
		// both see the disk in the same state.
		d, err := rw.op()
		if err != nil {
			return out, fmt.Errorf("raw file operations: %w", err)
		}
		raw[seq] = int64(d)
		if e.opts.gap > 0 {
			time.Sleep(e.opts.gap)
		}
		t0, t1, err := s.send(ctx, seq)
		if err != nil {
			return out, err
		}
		call[seq], done[seq] = int64(t1.Sub(t0)), t1.UnixNano()
		if err := rx.awaitGot(ctx); err != nil {
			return out, fmt.Errorf("message %d: %w", seq, err)
		}
	}
	res, err := rx.finish(ctx)
	if err != nil {
		return out, err
	}
	after := make([]int64, n)
	for i := range n {
		after[i] = res.RecvNs[i] - done[i]
	}
	out.e2e, out.call, out.after, out.raw, out.res = summarise(res.LatencyNs), summarise(call), summarise(after), summarise(raw), res
	return out, nil
}
