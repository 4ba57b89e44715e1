package budget

import (
	"fmt"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// maxAccounts bounds the task accounts kept in memory; the oldest goes
// first (a task is worked on in one turn, or a few close together).
const maxAccounts = 512

// account is what one budgeted task has spent here.
type account struct {
	budget envelope.Budget
	spent  agentloop.Usage
	cost   float64
}

// charge adds one call's usage and cost.
func (a *account) charge(u agentloop.Usage, cost float64) {
	a.spent = a.spent.Add(u)
	a.cost += cost
}

// refusal says why no further call may be made ("" while some budget is
// left).
func (a *account) refusal() string {
	if b := a.budget.Tokens; b > 0 && a.spent.Total() >= b {
		return fmt.Sprintf("budget exhausted: the task used %d of its %d tokens", a.spent.Total(), b)
	}
	if b := a.budget.Cost; b > 0 && a.cost >= b {
		return fmt.Sprintf("budget exhausted: the task cost %.4g of its %.4g", a.cost, b)
	}
	return ""
}

// left returns what is left of the budget (the bounds it sets only).
func (a *account) left() envelope.Budget {
	var out envelope.Budget
	if a.budget.Tokens > 0 {
		out.Tokens = a.budget.Tokens - a.spent.Total()
	}
	if a.budget.Cost > 0 {
		out.Cost = a.budget.Cost - a.cost
	}
	return out
}

// accounts are the task accounts by task id, the oldest dropped past a
// bound.
type accounts struct {
	max   int
	byID  map[string]*account
	order []string
}

func newAccounts(max int) accounts { return accounts{max: max, byID: map[string]*account{}} }

// open starts the account of task id with budget b, unless it is open.
func (as *accounts) open(id string, b envelope.Budget) {
	if _, ok := as.byID[id]; ok || id == "" {
		return
	}
	if len(as.order) >= as.max {
		delete(as.byID, as.order[0])
		as.order = as.order[1:]
	}
	as.byID[id] = &account{budget: b}
	as.order = append(as.order, id)
}

// get returns task id's account, or nil.
func (as *accounts) get(id string) *account { return as.byID[id] }
