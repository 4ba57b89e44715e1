package budget

import (
	"context"
	"slices"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Hand returns the budget a task delegated during turn t carries, and
// settle, to call once with the new task's id when it was sent ("" when
// nothing was sent). From a turn that works on a budgeted task the
// budget is what is left of that task at this moment, less what subtasks
// still running were handed (so subtasks delegated side by side cannot
// spend more than the task has); it is set aside for the new task until
// the task ends (SubtaskEnded). Otherwise it is the configured task
// budget, else nil (none). Hand fails with an *agent.TaskFailure
// when nothing is left.
func (k *Keeper) Hand(t *agent.Turn) (*envelope.Budget, func(taskID string), error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if st := k.turns[t]; st != nil && st.task != "" {
		if acc := k.accounts.get(st.task); acc != nil {
			left, why := acc.left()
			if why != "" {
				return nil, func(string) {}, &agent.TaskFailure{Reason: why}
			}
			k.seq++
			pending := k.seq // holds the budget until settle
			if acc.pending == nil {
				acc.pending = map[int]envelope.Budget{}
			}
			acc.pending[pending] = left
			parent := st.task
			return &left, func(taskID string) { k.handed(parent, pending, taskID, left) }, nil
		}
	}
	if k.cfg.TaskTokens > 0 || k.cfg.TaskCost > 0 {
		return &envelope.Budget{Tokens: k.cfg.TaskTokens, Cost: k.cfg.TaskCost}, func(string) {}, nil
	}
	return nil, func(string) {}, nil
}

// handed moves the budget set aside under pending to subtask sub (or
// frees it when sub is "": nothing was sent), and saves the accounts.
func (k *Keeper) handed(parent string, pending int, sub string, b envelope.Budget) {
	k.mu.Lock()
	acc := k.accounts.get(parent)
	if acc != nil {
		delete(acc.pending, pending)
		if sub != "" && !slices.Contains(acc.Settled, sub) { // it may have ended already
			acc.hand(sub, b)
		}
	}
	k.mu.Unlock()
	if acc != nil && sub != "" {
		k.saveAccounts(context.Background())
	}
}

// Spent returns the budget of task taskID, which this agent works on, and
// what it used so far: its own provider calls, what its ended subtasks
// reported, and the budgets handed to those still running; nil, nil for
// a task without a budget. The mailbox channel reports both in the
// task's final update, so that the delegator charges it.
func (k *Keeper) Spent(ctx context.Context, taskID string) (budget, used *envelope.Budget) {
	k.loadAccounts(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	acc := k.accounts.get(taskID)
	if acc == nil {
		return nil, nil
	}
	b, u := acc.Budget, acc.used()
	return &b, &u
}

// SubtaskEnded charges to task parent what its subtask sub reported it
// used (nil: it reported nothing, as a nanobot worker) and frees the
// budget handed to it. A subtask charged already (an update read twice)
// changes nothing, nor does a parent without a budget.
func (k *Keeper) SubtaskEnded(ctx context.Context, parent, sub string, used *envelope.Budget) {
	k.loadAccounts(ctx)
	k.mu.Lock()
	acc := k.accounts.get(parent)
	changed := acc != nil && acc.settle(sub, used)
	k.mu.Unlock()
	if changed {
		k.saveAccounts(ctx)
	}
}
