package fsstore

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// maxUnsynced bounds the acknowledgements waiting for a group commit: a
// submitter beyond it waits until the committer takes the batch, so the
// work a machine crash can undo stays bounded however fast a receiver
// acknowledges.
const maxUnsynced = 4096

// commitWindow is how long a batch of pipelined acknowledgements stays
// open for more before it is committed, unless it reaches commitBatch
// first or someone waits for it (Ack, Quarantine, Close). A pipelined
// acknowledgement has no one waiting for it, so the window costs no
// latency, and it lets a receiver that handles a message in a few
// microseconds make tens of acknowledgements durable with one fsync per
// folder instead of one or two (the commit that starts at the first
// submission otherwise takes only what came during the previous fsync).
const commitWindow = time.Millisecond

// commitBatch closes a batch at once when it holds this many changes.
const commitBatch = 256

// syncTarget is something a group commit fsyncs: a held folder, the dedup
// journal.
type syncTarget interface{ syncNow() error }

// groupCommit makes batches of changes durable together (classic group
// commit). A change is made first (a move, a journal line), then submitted
// with what must be synced for it; the first submitter finding no commit
// running starts one at once, and the changes submitted while a commit
// runs form the next batch. A commit fsyncs each target of its batch
// once, reports the batch's events (the audit log lines, in one write)
// and then calls every done of the batch with the outcome. So a lone
// change is synced at once, as without batching, and under load one fsync
// per folder serves every change made during the previous one. A batch
// of pipelined changes only (no one waiting) stays open up to
// commitWindow for more (see there).
type groupCommit struct {
	report func([]driver.Event) // writes a batch's events (Store.emitBatch)
	window time.Duration        // commitWindow; 0 commits at once

	mu      sync.Mutex
	room    sync.Cond // signalled when a batch is taken
	targets []syncTarget
	events  []driver.Event
	done    []func(error)
	urgent  bool          // someone waits for the open batch
	opened  time.Time     // when the open batch got its first change
	kick    chan struct{} // closes the open batch's window early
	running bool
	idle    chan struct{} // closed when the running commit ends
}

func newGroupCommit(report func([]driver.Event)) *groupCommit {
	g := &groupCommit{report: report, window: commitWindow, kick: make(chan struct{}, 1)}
	g.room.L = &g.mu
	return g
}

// submit adds a change to the next batch: the targets to sync, the event
// to report once they are (nil: none) and done, called with the outcome
// (nil: none); urgent says that someone waits for done, which closes the
// batch's window. It returns at once unless maxUnsynced changes are
// waiting.
func (g *groupCommit) submit(urgent bool, ev *driver.Event, done func(error), targets ...syncTarget) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for len(g.done) >= maxUnsynced {
		g.room.Wait()
	}
	for _, t := range targets {
		if !slices.Contains(g.targets, t) {
			g.targets = append(g.targets, t)
		}
	}
	if ev != nil {
		g.events = append(g.events, *ev)
	}
	if done == nil {
		done = func(error) {}
	}
	if len(g.done) == 0 {
		g.opened = time.Now()
	}
	g.done = append(g.done, done)
	if urgent || len(g.done) == commitBatch {
		g.closeWindow()
	}
	if !g.running {
		g.running, g.idle = true, make(chan struct{})
		go g.run()
	}
}

// closeWindow commits the open batch without waiting for its window.
// The caller holds g.mu.
func (g *groupCommit) closeWindow() {
	g.urgent = true
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// flush waits until every change submitted so far is committed.
func (g *groupCommit) flush() {
	g.mu.Lock()
	running, idle := g.running, g.idle
	if running {
		g.closeWindow()
	}
	g.mu.Unlock()
	if running {
		<-idle
	}
}

// await keeps the open batch open until its window ends (commitWindow
// after its first change), it holds
// commitBatch changes or someone waits for it. The caller holds g.mu,
// which await lets go while it waits.
func (g *groupCommit) await() {
	if g.window <= 0 || g.urgent || len(g.done) >= commitBatch {
		return
	}
	wait := g.window - time.Since(g.opened)
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	g.mu.Unlock()
	select {
	case <-g.kick:
	case <-t.C:
	}
	g.mu.Lock()
}

// run commits batches until none is waiting.
func (g *groupCommit) run() {
	for {
		g.mu.Lock()
		if len(g.done) == 0 {
			g.running = false
			close(g.idle)
			g.mu.Unlock()
			return
		}
		g.await()
		targets, events, done := g.targets, g.events, g.done
		g.targets, g.events, g.done, g.urgent = nil, nil, nil, false
		select { // a kick for the batch just taken
		case <-g.kick:
		default:
		}
		g.room.Broadcast()
		g.mu.Unlock()

		var errs []error
		for _, t := range targets {
			if err := t.syncNow(); err != nil {
				errs = append(errs, err)
			}
		}
		err := errors.Join(errs...)
		if len(events) > 0 { // the moves were made, synced or not
			g.report(events)
		}
		for _, fn := range done {
			fn(err)
		}
	}
}
