package route

import (
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// IsLoop is the receive side of the loop rules: it reports a message that
// is not a reply (a task_update, or a message with reply_to) but has
// already passed through agent self.
func IsLoop(m *envelope.Message, self string) bool {
	if m.Type == envelope.TypeTaskUpdate || m.ReplyTo != "" {
		return false
	}
	return m.InTrace(self)
}

// LoopReason is why agent self refuses a message that IsLoop reports:
// "loop: self already in trace [a b self]". The trace comes from the
// sender and may be long: it is shown as meta.ChainText shows a chain
// (the start and the end, with how many it leaves out, each name
// clipped), so that the reason (sent back to a delegator, logged, kept
// beside the set-aside message) stays one readable line.
func LoopReason(self string, trace []string) string {
	return fmt.Sprintf("loop: %s already in trace [%s]", self, meta.ChainText(trace, " "))
}

// Original is the send side's question "is req a reply, and to what?": it
// returns the message req answers when req is a task_update, or goes back
// to the sender of its Parent, or has a reply_to naming a message that
// recent (nil: none) remembers receiving from req.To. An update of a task
// whose request is no longer remembered is still a reply, starting a
// fresh count with defaultTTL. A nil result makes req a new send or
// forward, under the trace and ttl rules.
func Original(req Request, recent func(id string) (meta.Meta, bool), defaultTTL int) *meta.Meta {
	if p := req.Parent; p != nil && p.From == req.To &&
		(req.Type == envelope.TypeTaskUpdate || req.ReplyTo == "" || req.ReplyTo == p.MessageID) {
		m := *p
		return &m
	}
	if req.ReplyTo != "" && recent != nil {
		if m, ok := recent(req.ReplyTo); ok && m.From == req.To {
			return &m
		}
	}
	if req.Type == envelope.TypeTaskUpdate {
		return &meta.Meta{TTL: defaultTTL}
	}
	return nil
}
