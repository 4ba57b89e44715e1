package budget

import (
	"fmt"
	"math"
	"slices"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// maxAccounts bounds the task accounts kept (in memory and in the
// store); the one used longest ago goes first (a task is worked on in a
// few turns close together).
const maxAccounts = 128

// maxSettled bounds the subtasks an account remembers as charged.
const maxSettled = 64

// account is what one budgeted task has spent here: the provider calls
// of the turns that work on it, and what the subtasks delegated from it
// reported when they ended. Handed holds the budgets handed to subtasks
// still running: they count against what a further subtask is given,
// and as spent in the task's own final report.
type account struct {
	Budget  envelope.Budget            `json:"budget"`
	Tokens  int64                      `json:"tokens,omitempty"`
	Cost    float64                    `json:"cost,omitempty"`
	Handed  map[string]envelope.Budget `json:"handed,omitempty"`
	Settled []string                   `json:"settled,omitempty"`
	// pending holds budgets handed out for tasks being sent (Hand), by a
	// number of this process; they are not stored.
	pending map[int]envelope.Budget
}

// charge adds tokens and cost to what the task spent.
func (a *account) charge(tokens int64, cost float64) {
	a.Tokens = addTokens(a.Tokens, tokens)
	a.Cost += cost
}

// addTokens is x + y, held at math.MaxInt64 rather than wrapping round:
// a subtask's report of what it used comes from another agent, and a
// huge one must exhaust the budget, not turn the count negative and
// free it.
func addTokens(x, y int64) int64 {
	if y > 0 && x > math.MaxInt64-y {
		return math.MaxInt64
	}
	return x + y
}

// refusal says why the task may make no further provider call ("" while
// some budget is left).
func (a *account) refusal() string {
	if b := a.Budget.Tokens; b > 0 && a.Tokens >= b {
		return fmt.Sprintf(envelope.BudgetExhausted+": the task used %d of its %d tokens", a.Tokens, b)
	}
	if b := a.Budget.Cost; b > 0 && a.Cost >= b {
		return fmt.Sprintf(envelope.BudgetExhausted+": the task cost %.4g of its %.4g", a.Cost, b)
	}
	return ""
}

// handedOut sums the budgets handed to subtasks still running.
func (a *account) handedOut() envelope.Budget {
	var sum envelope.Budget
	for _, b := range a.Handed {
		sum.Tokens = addTokens(sum.Tokens, b.Tokens)
		sum.Cost += b.Cost
	}
	for _, b := range a.pending {
		sum.Tokens = addTokens(sum.Tokens, b.Tokens)
		sum.Cost += b.Cost
	}
	return sum
}

// used is what the task counts as spent: its own calls, what its ended
// subtasks reported, and the budgets of those still running.
func (a *account) used() envelope.Budget {
	h := a.handedOut()
	return envelope.Budget{Tokens: addTokens(a.Tokens, h.Tokens), Cost: a.Cost + h.Cost}
}

// left returns what a new subtask may be given (the bounds the budget
// sets only), or why nothing is left: what the task spent, less what
// subtasks still running were handed.
func (a *account) left() (envelope.Budget, string) {
	if why := a.refusal(); why != "" {
		return envelope.Budget{}, why
	}
	h := a.handedOut()
	var out envelope.Budget
	if b := a.Budget.Tokens; b > 0 {
		if out.Tokens = b - addTokens(a.Tokens, h.Tokens); out.Tokens <= 0 {
			return envelope.Budget{}, fmt.Sprintf(envelope.BudgetExhausted+": the task used %d of its %d tokens and handed the other %d to subtasks still running",
				a.Tokens, b, b-a.Tokens)
		}
	}
	if b := a.Budget.Cost; b > 0 {
		if out.Cost = b - a.Cost - h.Cost; out.Cost <= 0 {
			return envelope.Budget{}, fmt.Sprintf(envelope.BudgetExhausted+": the task cost %.4g of its %.4g and handed the rest to subtasks still running",
				a.Cost, b)
		}
	}
	return out, ""
}

// hand records that subtask sub was given b.
func (a *account) hand(sub string, b envelope.Budget) {
	if a.Handed == nil {
		a.Handed = map[string]envelope.Budget{}
	}
	a.Handed[sub] = b
}

// settle charges what subtask sub reported it used (nil: not reported)
// and frees what it was handed; it reports false for a subtask charged
// already (an update read twice).
func (a *account) settle(sub string, used *envelope.Budget) bool {
	if slices.Contains(a.Settled, sub) {
		return false
	}
	delete(a.Handed, sub)
	if used != nil {
		a.charge(used.Tokens, used.Cost)
	}
	a.Settled = append(a.Settled, sub)
	if len(a.Settled) > maxSettled {
		a.Settled = slices.Delete(a.Settled, 0, len(a.Settled)-maxSettled)
	}
	return true
}

// accounts are the task accounts by task id, the one used longest ago
// dropped past a bound.
type accounts struct {
	max   int
	byID  map[string]*account
	order []string // least recently used first
}

func newAccounts(max int) accounts { return accounts{max: max, byID: map[string]*account{}} }

// open starts the account of task id with budget b, unless it is open.
func (as *accounts) open(id string, b envelope.Budget) {
	if _, ok := as.byID[id]; ok || id == "" {
		return
	}
	as.put(id, &account{Budget: b})
}

// put sets task id's account, as the one used last.
func (as *accounts) put(id string, a *account) {
	if _, ok := as.byID[id]; ok {
		as.order = slices.DeleteFunc(as.order, func(s string) bool { return s == id })
	}
	for len(as.order) >= as.max {
		delete(as.byID, as.order[0])
		as.order = as.order[1:]
	}
	as.byID[id] = a
	as.order = append(as.order, id)
}

// get returns task id's account, or nil.
func (as *accounts) get(id string) *account { return as.byID[id] }

// touch makes task id's account the one used last.
func (as *accounts) touch(id string) {
	if a := as.byID[id]; a != nil && (len(as.order) == 0 || as.order[len(as.order)-1] != id) {
		as.put(id, a)
	}
}

// costOf is what usage u costs at prices in and out (per million tokens).
func costOf(u agent.Usage, in, out float64) float64 {
	return (float64(u.InputTokens)*in + float64(u.OutputTokens)*out) / 1e6
}
