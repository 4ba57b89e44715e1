package host

import (
	"context"
	"log/slog"

	"github.com/switchboard-dev/switchboard/agentloop/budget"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
)

// newKeeper returns the budget hook of an agent with a mailbox: the
// bounds of channels.mailbox.budget, its books kept in the mailbox's
// store (usage entries in the audit log, the day's count beside the
// inbox).
func newKeeper(mb *mailbox.Channel, clk clock.Clock, log *slog.Logger) *budget.Keeper {
	b := mb.Config().Budget
	return budget.New(budget.Config{
		TaskTokens: b.TaskTokens, TaskCost: b.TaskCost, DailyTokens: b.DailyTokens,
		InputPrice: b.InputPrice, OutputPrice: b.OutputPrice,
		Clock: clk, Books: books{mb}, Logger: log,
	})
}

// judgementReason is the reason of the usage entry of a task judgement.
const judgementReason = "task judgement"

// cutShortReason is the reason of the usage entry of a turn whose
// process stopped before it ended (budget.Entry.CutShort).
const cutShortReason = "turn cut short: the agent stopped before it ended"

// books keeps a keeper's books in the mailbox's store: usage entries in
// the audit log (store.EventUsage), the day's count in the agent's state
// records.
type books struct{ *mailbox.Channel }

var _ budget.Books = books{}

// RecordUsage implements budget.Books.
func (b books) RecordUsage(ctx context.Context, e budget.Entry) {
	ev := store.Event{MessageID: e.MessageID, ThreadID: e.ThreadID, TaskID: e.TaskID,
		Model: e.Model, InputTokens: e.InputTokens, OutputTokens: e.OutputTokens}
	switch {
	case e.Judgement:
		ev.Reason = judgementReason
	case e.CutShort:
		ev.Reason = cutShortReason
	}
	b.Channel.RecordUsage(ctx, ev)
}
