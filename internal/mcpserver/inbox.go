package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// inbox holds what the channel handed over for the client: queued
// messages not yet taken, and taken ones not yet acknowledged. It takes
// from the bus only while fewer than max messages are queued, so the rest
// waits in the mailbox.
type inbox struct {
	room chan struct{} // a token per queued message; full: stop taking

	mu     sync.Mutex
	got    uint64        // messages taken from the bus so far
	grew   chan struct{} // closed, and replaced, when got grows
	queued []bus.InboundMessage
	taken  map[string]bus.InboundMessage // by message id, until acknowledged
	seen   map[string]meta.Meta          // every message handed, by id (for reply)
}

func newInbox(max int) *inbox {
	return &inbox{room: make(chan struct{}, max), grew: make(chan struct{}), taken: map[string]bus.InboundMessage{}, seen: map[string]meta.Meta{}}
}

// consume takes messages from b into the queue until ctx ends, calling
// arrived after each.
func (in *inbox) consume(ctx context.Context, b *bus.Bus, arrived func()) {
	for {
		select {
		case in.room <- struct{}{}:
		case <-ctx.Done():
			return
		}
		m, err := b.ConsumeInbound(ctx)
		if err != nil {
			return
		}
		in.mu.Lock()
		in.got++
		close(in.grew)
		in.grew = make(chan struct{})
		in.queued = append(in.queued, m)
		if mt, ok := meta.Of(m.Metadata); ok {
			in.seen[mt.MessageID] = *mt
		}
		in.mu.Unlock()
		arrived()
	}
}

// awaitTaken waits until n messages have been taken from the bus in all,
// or the queue is full (the rest waits in the mailbox), or ctx ends.
func (in *inbox) awaitTaken(ctx context.Context, n uint64) {
	for {
		in.mu.Lock()
		done, grew := in.got >= n || len(in.room) == cap(in.room), in.grew
		in.mu.Unlock()
		if done {
			return
		}
		select {
		case <-grew:
		case <-ctx.Done():
			return
		}
	}
}

// peek returns the queued messages without taking them.
func (in *inbox) peek() []bus.InboundMessage {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]bus.InboundMessage(nil), in.queued...)
}

// take acknowledges every message taken before, then takes up to limit
// queued messages (0: all); with ack they are acknowledged at once,
// otherwise at the next take or by acknowledge.
func (in *inbox) take(limit int, ack bool) []bus.InboundMessage {
	in.mu.Lock()
	var done []bus.InboundMessage
	for id, m := range in.taken {
		done = append(done, m)
		delete(in.taken, id)
	}
	n := len(in.queued)
	if limit > 0 && limit < n {
		n = limit
	}
	out := append([]bus.InboundMessage(nil), in.queued[:n]...)
	in.queued = append([]bus.InboundMessage(nil), in.queued[n:]...)
	for _, m := range out {
		if ack || idOf(m) == "" { // a notice without an id is acknowledged at once
			done = append(done, m)
		} else {
			in.taken[idOf(m)] = m
		}
	}
	in.mu.Unlock()
	for range out {
		<-in.room
	}
	for _, m := range done {
		m.Done() // outside the lock: it writes to the store
	}
	return out
}

// acknowledge acknowledges the taken messages ids; it returns the ids
// that were not waiting for an acknowledgement.
func (in *inbox) acknowledge(ids []string) (unknown []string) {
	in.mu.Lock()
	var done []bus.InboundMessage
	for _, id := range ids {
		m, ok := in.taken[id]
		if !ok {
			unknown = append(unknown, id)
			continue
		}
		done = append(done, m)
		delete(in.taken, id)
	}
	in.mu.Unlock()
	for _, m := range done {
		m.Done()
	}
	return unknown
}

// lookup returns the mailbox details of a message handed to the client.
func (in *inbox) lookup(id string) (meta.Meta, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	mt, ok := in.seen[id]
	return mt, ok
}

// given reports whether the client was handed task taskID from agent
// `from`.
func (in *inbox) given(taskID, from string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, mt := range in.seen {
		if mt.IsTask() && mt.TaskOf() == taskID && mt.From == from {
			return true
		}
	}
	return false
}

// idOf is the message's mailbox id (the bus id when it has no details).
func idOf(m bus.InboundMessage) string {
	if mt, ok := meta.Of(m.Metadata); ok && mt.MessageID != "" {
		return mt.MessageID
	}
	return m.ID
}

// recoverWait bounds how long the first look at the inbox waits for what
// the mailbox hands over again at start.
const recoverWait = 10 * time.Second

// awaitRecovered waits, the first time it is called for a, until the
// messages the mailbox hands over again at start (those the client was
// given and did not acknowledge before the server last stopped) are in
// the queue, or the queue is full, or recoverWait passed: on NATS they
// come back from the server a moment after the start, and the client's
// first check_inbox would otherwise find nothing.
func (a *agent) awaitRecovered(ctx context.Context) {
	a.recovering.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, recoverWait)
		defer cancel()
		select {
		case <-a.ch.Recovered():
		case <-ctx.Done():
			return
		}
		a.inbox.awaitTaken(ctx, a.ch.Published())
	})
}
