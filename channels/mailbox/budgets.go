package mailbox

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/budget"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Budgets is the agent's count of what its tasks spend on models, as the
// channel uses it (its budget keeper implements it: see Hooks): the final update of a
// task this agent worked on reports what the task used, and what a
// subtask this agent delegated reports is charged to the task it was
// delegated from.
type Budgets interface {
	// Spent returns the budget of task taskID, which this agent works on,
	// and what it used, its subtasks included (nil, nil: not counted).
	Spent(ctx context.Context, taskID string) (budget, used *envelope.Budget)
	// SubtaskEnded charges to task parent what its subtask sub used (nil:
	// not reported) and frees the budget handed to it.
	SubtaskEnded(ctx context.Context, parent, sub string, used *envelope.Budget)
}

// SetBudgets installs the agent's budgets (nil: none; tasks then report
// no usage and subtasks' usage is not charged). Hooks installs the
// channel's own budget keeper.
func (c *Channel) SetBudgets(b Budgets) {
	c.mu.Lock()
	c.budgets = b
	c.mu.Unlock()
}

// Hooks returns the hooks the agent loop runs for this channel's agent,
// before any other: the budget keeper of channels.mailbox.budget, which
// refuses a provider call past a task's budget or the day's cap and
// records every turn's usage in the audit log. From the first call on,
// the channel's tasks are counted by it (their final updates report what
// they used; a subtask's usage is charged to its parent): the channel's
// Budgets are the keeper.
func (c *Channel) Hooks() []agent.Hook { return []agent.Hook{c.keeper()} }

// keeper returns the channel's budget keeper, made and installed as its
// Budgets at the first call (so that a channel no loop runs, such as the
// MCP server's, counts nothing).
func (c *Channel) keeper() *budget.Keeper {
	c.keeperOnce.Do(func() {
		b := c.cfg.Budget
		k := budget.New(budget.Config{
			TaskTokens: b.TaskTokens, TaskCost: b.TaskCost, DailyTokens: b.DailyTokens,
			InputPrice: b.InputPrice, OutputPrice: b.OutputPrice,
			Clock: c.clk, Books: books{c}, Logger: c.Logger(),
		})
		c.kept.Store(k)
		c.SetBudgets(k)
	})
	return c.kept.Load()
}

// BudgetStats counts the provider calls the budget keeper refused.
type BudgetStats = budget.Stats

// BudgetStats returns the provider calls the channel's budget keeper
// refused (zero when no agent loop runs it: see Hooks).
func (c *Channel) BudgetStats() BudgetStats {
	if k := c.kept.Load(); k != nil {
		return k.Stats()
	}
	return BudgetStats{}
}

// The reasons of the usage entries that are not a whole turn's.
const (
	// judgementReason is the reason of the usage entry of a task judgement.
	judgementReason = "task judgement"
	// cutShortReason is the reason of the usage entry of a turn whose
	// process stopped before it ended (budget.Entry.CutShort).
	cutShortReason = "turn cut short: the agent stopped before it ended"
)

// books keeps a keeper's books in the channel's store: usage entries in
// the audit log (store.EventUsage), the day's count and the tasks'
// accounts in the agent's state records.
type books struct{ *Channel }

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

func (c *Channel) budgetsOf() Budgets {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.budgets
}

// spent returns the budget and usage task taskID's final update reports.
func (c *Channel) spent(ctx context.Context, taskID string) (budget, used *envelope.Budget) {
	if b := c.budgetsOf(); b != nil {
		return b.Spent(ctx, taskID)
	}
	return nil, nil
}

// subtaskEnded charges what the task of rec, delegated from a task this
// agent worked on, reported it used when it ended (used nil: nothing
// reported, as when it was lost or came from nanobot), and frees what it
// was handed.
func (c *Channel) subtaskEnded(ctx context.Context, rec ledger.Record, used *envelope.Budget) {
	if rec.ParentTask == "" {
		return
	}
	if b := c.budgetsOf(); b != nil {
		b.SubtaskEnded(ctx, rec.ParentTask, rec.TaskID, used)
		if used != nil {
			c.RecordUsage(ctx, store.Event{TaskID: rec.ParentTask, From: rec.To,
				Reason: fmt.Sprintf("subtask %s %s, charged to task %s", rec.TaskID, UsedText(nil, used), rec.ParentTask)})
		}
	}
}

// recordTaskTotal records in the audit log what task taskID used, as its
// final update msg reports it.
func (c *Channel) recordTaskTotal(ctx context.Context, msg *envelope.Message) {
	if msg == nil || msg.Task == nil || msg.Task.Used == nil {
		return
	}
	c.RecordUsage(ctx, store.Event{MessageID: msg.ID, ThreadID: msg.ThreadID, TaskID: msg.Task.ID,
		Reason: "task " + string(msg.Task.State) + ": " + UsedText(msg.Task.Budget, msg.Task.Used)})
}

// UsedText says what a task used of its budget, as a final update
// reports them: "used 420 of its 300 tokens (none left)", "used 120 of
// its 300 tokens (180 left)", "used 120 tokens" without a budget; a cost
// follows the tokens ("; cost 0.0021 of its 0.01 (0.0079 left)").
func UsedText(budget, used *envelope.Budget) string {
	if used == nil {
		return ""
	}
	var b envelope.Budget
	if budget != nil {
		b = *budget
	}
	out := "used " + amount(used.Tokens, b.Tokens, "%d", " tokens")
	if used.Cost > 0 || b.Cost > 0 {
		out += "; cost " + amount(used.Cost, b.Cost, "%.4g", "")
	}
	return out
}

// amount says n of its bound (and what is left), or n alone without one.
func amount[N int64 | float64](n, bound N, verb, unit string) string {
	if bound <= 0 {
		return fmt.Sprintf(verb, n) + unit
	}
	left := "none left"
	if n < bound {
		left = fmt.Sprintf(verb, bound-n) + " left"
	}
	return fmt.Sprintf(verb+" of its "+verb, n, bound) + unit + " (" + left + ")"
}

// isBudgetExhausted reports whether reason, a task's failure, says its
// budget was spent.
func isBudgetExhausted(reason string) bool {
	return strings.HasPrefix(reason, envelope.BudgetExhausted)
}
