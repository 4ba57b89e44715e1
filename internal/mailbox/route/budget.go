package route

import "github.com/switchboard-dev/switchboard/channels/mailbox/envelope"

// budgetOf returns the budget of a task sent for req: its own, else that
// of the budgeted task being handled (a task delegated from inside a task
// never escapes its bound), else none. A budget that bounds nothing is
// none.
func budgetOf(req Request) *envelope.Budget {
	b := req.Budget
	if b == nil && req.Parent != nil && req.Parent.Task != nil && req.Parent.IsTask() {
		b = req.Parent.Task.Budget
	}
	if !b.Bounded() {
		return nil
	}
	c := *b
	return &c
}
