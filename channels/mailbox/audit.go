package mailbox

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// record reports ev to the store's audit log, when it keeps one. The
// audit log never stops the mailbox: a failure is logged.
func (c *Channel) record(ctx context.Context, ev store.Event) {
	if ev.Time.IsZero() {
		ev.Time = c.clk.Now()
	}
	if ev.Agent == "" {
		ev.Agent = c.cfg.AgentID
	}
	if err := c.backend.Record(context.WithoutCancel(ctx), ev); err != nil && !errors.Is(err, store.ErrNotSupported) {
		c.Logger().Warn("audit log not written", "kind", ev.Kind, "id", ev.MessageID, "err", err)
	}
}

// recordMessage reports an event about message m.
func (c *Channel) recordMessage(ctx context.Context, kind store.EventKind, m *envelope.Message, reason string) {
	c.record(ctx, store.Event{Kind: kind, MessageID: m.ID, From: m.From, ThreadID: m.ThreadID,
		TaskID: m.TaskOf(), Reason: reason})
}
