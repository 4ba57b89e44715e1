package mailbox

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
)

// This file is the agent's drain (seed 004's "draining" status): asked
// by DrainWork (the host, on SIGUSR1) or by a drain request in the store
// (`switchboard drain AGENT`, the console), which the agent looks for at
// every heartbeat, or when the store nudges it (drainRequests). A
// draining agent
//
//   - says "draining" on its card: nanobot's readers, which know idle,
//     busy and offline, see an agent that is online and not idle, and
//     switchboard's any:, cap: and role: routing of tasks, and the
//     offering of a task to the next holder, skip it;
//   - rejects every new task with drainReason, so that its delegator
//     offers it elsewhere or escalates it;
//   - finishes the tasks it works on (their subtasks, replies and
//     updates go on as usual);
//   - then closes WorkDrained: the host stops as on SIGTERM, the card
//     says offline, and `switchboard run` exits 0.

// drainState is the channel's drain: off until begun, then done once no
// task is left.
type drainState struct {
	mu    sync.Mutex
	on    bool
	done  chan struct{}
	ended bool
	since time.Time // when this run started: older requests are stale
}

func newDrainState() *drainState { return &drainState{done: make(chan struct{})} }

// begin turns the drain on; it reports false when it was on already.
func (d *drainState) begin() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.on {
		return false
	}
	d.on = true
	return true
}

func (d *drainState) isOn() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.on
}

// end closes done once, when the drain is on; it reports whether it did.
func (d *drainState) end() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.on || d.ended {
		return false
	}
	d.ended = true
	close(d.done)
	return true
}

var _ channels.WorkDrainer = (*Channel)(nil)

// DrainWork begins the agent's drain (see the top of this file); a second
// call does nothing. The channel must be running.
func (c *Channel) DrainWork(ctx context.Context) error {
	if _, _, _, err := c.state(); err != nil {
		return err
	}
	c.beginDrain(ctx, "")
	return nil
}

// WorkDrained is closed once the agent drained and its last task ended.
func (c *Channel) WorkDrained() <-chan struct{} { return c.drain.done }

// Draining reports whether the agent drains.
func (c *Channel) Draining() bool { return c.drain.isOn() }

// drainReason is why a draining agent rejects a task.
func (c *Channel) drainReason() string {
	return "draining: " + c.cfg.AgentID + " finishes the tasks it has and takes no new ones"
}

// beginDrain turns the drain on (by names who asked: "" for this
// process), writes the card and, without tasks in hand, ends it at once.
func (c *Channel) beginDrain(ctx context.Context, by string) {
	if !c.drain.begin() {
		return
	}
	n := c.active.Len()
	reason := fmt.Sprintf("draining: %d task(s) to finish, no new ones taken", n)
	if by != "" {
		reason += " (asked by " + by + ")"
	}
	if err := c.syncCard(ctx); err != nil { // the card says draining before anyone is told
		c.Logger().Warn("update card", "err", err)
	}
	c.Logger().Info("mailbox draining: finishing the tasks in hand, taking no new ones", "agent", c.cfg.AgentID, "tasks", n)
	c.record(ctx, store.Event{Kind: store.EventDrain, Reason: reason})
	c.drainStep(ctx)
}

// drainStep ends the drain once no task is left; cardChanged calls it
// after every change of the tasks in hand.
func (c *Channel) drainStep(ctx context.Context) {
	if !c.drain.isOn() || c.active.Len() > 0 {
		return
	}
	if c.drain.end() {
		c.Logger().Info("mailbox drained: no task left; going offline", "agent", c.cfg.AgentID)
		c.record(ctx, store.Event{Kind: store.EventDrain, Reason: "drained: no task left; going offline"})
	}
}

// statusFor is the status the card says with tasks in hand.
func (c *Channel) statusFor(tasks []string) envelope.Status {
	if c.drain.isOn() {
		return envelope.StatusDraining
	}
	return statusOf(tasks)
}

// drainSafetyBeats is how many heartbeats apart an agent whose store
// nudges it (store.CanNudge) reads its drain request anyway: for a request
// recorded by a program that does not nudge (an older switchboard) or
// whose nudge was lost. A minute with the default heartbeat interval.
const drainSafetyBeats = 12

// drainNudges are the nudges of the agent's drain requests, when its
// store nudges it: every is how many ticks apart the request is read
// anyway (1 without nudges), due whether the first tick reads it.
type drainNudges struct {
	nudged chan struct{}
	stop   func()
	every  int
	due    bool
}

// listenDrainRequests starts listening for the nudges of the agent's drain
// requests (store.WatchDrainRequests), before the run's start is marked:
// a request made since then is nudged. When the store cannot nudge, every
// tick reads the request. Start calls it, holding c.mu.
func (c *Channel) listenDrainRequests(ctx context.Context) *drainNudges {
	d := &drainNudges{nudged: make(chan struct{}, 1), stop: func() {}, every: 1}
	be := c.backend
	if be == nil {
		return d
	}
	stop, err := be.WatchDrainRequests(ctx, c.cfg.AgentID, func() {
		select {
		case d.nudged <- struct{}{}:
		default: // one is pending already
		}
	})
	switch {
	case err == nil:
		// The first tick reads the request anyway: a nudge can be lost.
		d.stop, d.every, d.due = stop, drainSafetyBeats, true
	case be.Has(store.CanNudge) && ctx.Err() == nil:
		c.Logger().Info("drain requests are read at every heartbeat: the store does not nudge this agent", "err", err)
	}
	return d
}

// drainRequests looks for a drain request made in the store since this
// run started: when nudged (n) at once, and at every n.every-th tick of t
// (and the first when n.due); a read that fails is tried again at the
// next tick. It stops listening to the nudges when it returns.
func (c *Channel) drainRequests(ctx context.Context, t clock.Ticker, n *drainNudges) {
	defer t.Stop()
	defer n.stop()
	if c.Backend() == nil {
		return
	}
	due := n.due
	for beats := 0; ; {
		select {
		case <-ctx.Done():
			return
		case <-n.nudged:
			due = !c.checkDrainRequest(ctx)
		case <-t.C():
			if beats++; due || beats%n.every == 0 {
				due = !c.checkDrainRequest(ctx)
			}
		}
		if c.drain.isOn() {
			return
		}
	}
}

// checkDrainRequest begins the drain when the store holds a request made
// since this run started; it reports false when the store could not be
// read.
func (c *Channel) checkDrainRequest(ctx context.Context) bool {
	r, ok, err := c.Backend().DrainRequested(ctx, c.cfg.AgentID)
	if err != nil {
		if ctx.Err() == nil {
			c.Logger().Warn("drain request not read", "err", err)
		}
		return false
	}
	c.drain.mu.Lock()
	since := c.drain.since
	c.drain.mu.Unlock()
	if ok && !r.At.Before(since) {
		c.beginDrain(ctx, r.By)
	}
	return true
}

// markDrainStart notes when this run started: drain requests older than
// that are stale.
func (c *Channel) markDrainStart(now time.Time) {
	c.drain.mu.Lock()
	c.drain.since = now
	c.drain.mu.Unlock()
}
