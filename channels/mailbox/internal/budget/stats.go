package budget

import "sync/atomic"

// Stats counts the provider calls a Keeper refused since it was made.
type Stats struct {
	// TaskRefusals counts calls refused because the turn's task spent
	// its budget (tokens or cost).
	TaskRefusals int64
	// DailyRefusals counts calls refused because the agent reached its
	// daily token cap.
	DailyRefusals int64
}

// counters are a Keeper's Stats as they grow.
type counters struct{ task, daily atomic.Int64 }

// Stats returns the keeper's counts, for metrics.
func (k *Keeper) Stats() Stats {
	return Stats{TaskRefusals: k.refused.task.Load(), DailyRefusals: k.refused.daily.Load()}
}
