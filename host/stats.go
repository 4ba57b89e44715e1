package host

import "github.com/switchboard-dev/switchboard/agentloop/budget"

// BudgetStats returns the provider calls the budget keeper refused
// (channels.mailbox.budget); zero without a mailbox.
func (h *Host) BudgetStats() budget.Stats {
	if h.keeper == nil {
		return budget.Stats{}
	}
	return h.keeper.Stats()
}
