package mailbox

import (
	"context"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
	"github.com/switchboard-dev/switchboard/internal/mailbox/waits"
)

// This file breaks deadlocks (seed 004): at every offlineAfter, an agent
// whose tasks wait on subtasks reads the wait-for graph of the mailbox
// (package waits, from every delegator's task records). A cycle whose
// youngest wait is this agent's, seen at two checks in a row (a cycle
// that dissolves on its own is left alone), is broken by this agent:
// that subtask fails with "deadlock broken: a → b → a: ..." (its worker
// is told canceled, this agent failed, as `switchboard waits --break`
// does, under this agent's name; both updates signed, the one in the
// worker's name with this agent's key when the worker's cannot be read
// here, which this agent takes as its own: keys.SentBy), and its task
// goes on without it. Only
// the youngest waiter breaks a cycle, so that two agents of one cycle do
// not both break it.

// deadlocks remembers the cycles seen at the last check, by the subtask
// of their youngest wait.
type deadlocks struct {
	mu   sync.Mutex
	seen map[string]bool
}

// deadlockLoop checks for deadlocks at every tick of t.
func (c *Channel) deadlockLoop(ctx context.Context, t clock.Ticker, sent *ledger.Delegated) {
	defer t.Stop()
	var d deadlocks
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			c.breakDeadlocks(ctx, sent, &d)
		}
	}
}

// breakDeadlocks breaks the cycles this agent is the youngest waiter of
// that were there at the last check too.
func (c *Channel) breakDeadlocks(ctx context.Context, sent *ledger.Delegated, d *deadlocks) {
	be := c.Backend()
	if be == nil || !slices.ContainsFunc(sent.List(), func(r ledger.Record) bool { return r.ParentTask != "" }) {
		d.reset(nil)
		return
	}
	g, _, err := waits.Load(ctx, be)
	if err != nil {
		if ctx.Err() == nil {
			c.Logger().Warn("wait-for graph not read", "err", err)
		}
		return
	}
	var mine []waits.Cycle
	for _, cy := range g.Cycles() {
		if cy.Youngest().Agent == c.cfg.AgentID {
			mine = append(mine, cy)
		}
	}
	for _, cy := range d.reset(mine) {
		op, err := operator.New(operator.Config{Store: be, DefaultTTL: c.cfg.DefaultTTL, Now: c.clk.Now,
			Logger: c.Logger(), Actor: c.cfg.AgentID, Key: c.signingKey()})
		if err == nil {
			var b operator.Broken
			if b, err = op.BreakDeadlock(ctx, cy); err == nil {
				c.Logger().Warn("deadlock broken", "cycle", cy.String(), "task", b.Wait.Task, "subtask", b.Wait.Subtask, "worker", b.Wait.On)
				continue
			}
		}
		c.Logger().Warn("deadlock not broken", "cycle", cy.String(), "err", err)
	}
}

// reset remembers cycles as those seen now and returns those that were
// seen at the last check too.
func (d *deadlocks) reset(cycles []waits.Cycle) []waits.Cycle {
	d.mu.Lock()
	defer d.mu.Unlock()
	var again []waits.Cycle
	seen := map[string]bool{}
	for _, cy := range cycles {
		k := cy.Youngest().Subtask
		seen[k] = true
		if d.seen[k] {
			again = append(again, cy)
		}
	}
	d.seen = seen
	return again
}
