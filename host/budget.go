package host

import (
	"log/slog"

	"github.com/switchboard-dev/switchboard/agentloop/budget"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
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
		Clock: clk, Books: mb, Logger: log,
	})
}

// The mailbox channel keeps the budget's books.
var _ budget.Books = (*mailbox.Channel)(nil)
