package mailbox

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// RecordUsage records what one of this agent's turns (or task
// judgements) cost as an EventUsage entry of the audit log, when the
// store keeps one: Model, InputTokens, OutputTokens, and the MessageID,
// ThreadID and TaskID of the message the turn answered. Agent and Time
// are filled in. A failure is logged; it never stops the agent.
func (c *Channel) RecordUsage(ctx context.Context, ev store.Event) {
	if c.Backend() == nil {
		return
	}
	ev.Kind = store.EventUsage
	c.record(ctx, ev)
}

// LoadState returns this agent's record under key in the store (nil when
// there is none), beside the records the channel keeps itself; it fails
// with ErrNotRunning unless the channel runs.
func (c *Channel) LoadState(ctx context.Context, key string) ([]byte, error) {
	be, _, _, err := c.state()
	if err != nil {
		return nil, err
	}
	return be.LoadState(ctx, c.cfg.AgentID, key)
}

// SaveState replaces this agent's record under key in the store; it
// fails with ErrNotRunning unless the channel runs.
func (c *Channel) SaveState(ctx context.Context, key string, data []byte) error {
	be, _, _, err := c.state()
	if err != nil {
		return err
	}
	return be.SaveState(ctx, c.cfg.AgentID, key, data)
}
