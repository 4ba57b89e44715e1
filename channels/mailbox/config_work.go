package mailbox

import (
	"fmt"
	"math"
)

// Work are the settings of budgets and of work that is stuck or lost
// (docs/guardrails.md). They are keys of the channels.mailbox section
// like the others; durations are seconds.
type Work struct {
	// AcceptTimeout is how long a delegated task may wait for its worker
	// to accept it: then it is offered to the next holder of the
	// capability it was sent for (any:, cap:), or the user is told.
	AcceptTimeout float64 `json:"acceptTimeout"`
	// Budget bounds the agent's model spending (channels.mailbox.budget).
	Budget Budget `json:"budget"`
}

// Budget is the channels.mailbox.budget section. Zero values set no bound.
type Budget struct {
	// TaskTokens is the token budget of a task delegated from a
	// conversation that has none (a user's chat); a task delegated from
	// inside a budgeted task carries what is left of that one.
	TaskTokens int64 `json:"taskTokens"`
	// TaskCost is the cost budget of such a task, counted at InputPrice
	// and OutputPrice.
	TaskCost float64 `json:"taskCost"`
	// DailyTokens caps the tokens the agent spends per day.
	DailyTokens int64 `json:"dailyTokens"`
	// InputPrice and OutputPrice are the cost of a million input and
	// output tokens of the agent's model.
	InputPrice  float64 `json:"inputPrice"`
	OutputPrice float64 `json:"outputPrice"`
}

// DefaultWork returns the defaults: a task must be accepted within 30
// seconds; no budget, no daily cap, no prices.
func DefaultWork() Work { return Work{AcceptTimeout: 30} }

// validate checks the keys; key names a key under the section.
func (w *Work) validate(key func(string) string) []error {
	var errs []error
	if p := timeoutRange.Problem(w.AcceptTimeout); p != "" {
		errs = append(errs, fmt.Errorf("%s: %s", key("acceptTimeout"), p))
	}
	b := w.Budget
	for _, n := range []struct {
		name string
		v    float64
	}{
		{"taskTokens", float64(b.TaskTokens)}, {"taskCost", b.TaskCost}, {"dailyTokens", float64(b.DailyTokens)},
		{"inputPrice", b.InputPrice}, {"outputPrice", b.OutputPrice},
	} {
		if n.v < 0 || math.IsNaN(n.v) || math.IsInf(n.v, 0) {
			errs = append(errs, fmt.Errorf("%s: want 0 (none) or more, got %v", key("budget."+n.name), n.v))
		}
	}
	if b.TaskCost > 0 && b.InputPrice == 0 && b.OutputPrice == 0 {
		errs = append(errs, fmt.Errorf("%s: a cost budget needs the model's prices (budget.inputPrice, budget.outputPrice)",
			key("budget.taskCost")))
	}
	return errs
}
