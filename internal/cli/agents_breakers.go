package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
)

// addBreakers fills the circuit breakers the listed agents hold open
// against each other (each agent saves its own, see limits.ReadBreakers).
// A record that cannot be read is reported through warn, and the list
// shown without breakers.
func addBreakers(ctx context.Context, st store.StateStore, lines []agentLine, now time.Time, warn func(error)) {
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = l.AgentID
	}
	open, err := limits.ReadBreakers(ctx, st, ids, now)
	if err != nil {
		warn(fmt.Errorf("circuit breakers not shown: %w", err))
		return
	}
	for i := range lines {
		b := open[lines[i].AgentID]
		slices.SortFunc(b, func(x, y limits.Open) int { return strings.Compare(x.By, y.By) })
		lines[i].Breakers = b
	}
}

// breakerNote is what the status column adds for open breakers:
// ", breaker open (lead 1m30s, planner 10s)", or "".
func breakerNote(now time.Time, open []limits.Open) string {
	if len(open) == 0 {
		return ""
	}
	parts := make([]string, len(open))
	for i, o := range open {
		parts[i] = fmt.Sprintf("%s %s", o.By, o.Until.Sub(now).Round(time.Second))
	}
	return ", breaker open (" + strings.Join(parts, ", ") + ")"
}
