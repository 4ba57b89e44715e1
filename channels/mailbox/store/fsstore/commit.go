package fsstore

import (
	"errors"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// maxUnsynced bounds the acknowledgements waiting for a group commit: a
// submitter beyond it waits until the committer takes the batch, so the
// work a machine crash can undo stays bounded however fast a receiver
// acknowledges.
const maxUnsynced = 4096

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
// per folder serves every change made during the previous one.
type groupCommit struct {
	report func([]store.Event) // writes a batch's events (Store.emitBatch)

	mu      sync.Mutex
	room    sync.Cond // signalled when a batch is taken
	targets []syncTarget
	events  []store.Event
	done    []func(error)
	running bool
	idle    chan struct{} // closed when the running commit ends
}

func newGroupCommit(report func([]store.Event)) *groupCommit {
	g := &groupCommit{report: report}
	g.room.L = &g.mu
	return g
}

// submit adds a change to the next batch: the targets to sync, the event
// to report once they are (nil: none) and done, called with the outcome
// (nil: none). It returns at once unless maxUnsynced changes are waiting.
func (g *groupCommit) submit(ev *store.Event, done func(error), targets ...syncTarget) {
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
	g.done = append(g.done, done)
	if !g.running {
		g.running, g.idle = true, make(chan struct{})
		go g.run()
	}
}

// wait submits a change and waits until it is durable.
func (g *groupCommit) wait(ev *store.Event, targets ...syncTarget) error {
	ch := make(chan error, 1)
	g.submit(ev, func(err error) { ch <- err }, targets...)
	return <-ch
}

// flush waits until every change submitted so far is committed.
func (g *groupCommit) flush() {
	g.mu.Lock()
	running, idle := g.running, g.idle
	g.mu.Unlock()
	if running {
		<-idle
	}
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
		targets, events, done := g.targets, g.events, g.done
		g.targets, g.events, g.done = nil, nil, nil
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
