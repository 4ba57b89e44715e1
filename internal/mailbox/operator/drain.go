package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// ErrNotRunning is returned by Drain for an agent that is not running:
// there is nothing to drain.
var ErrNotRunning = errors.New("agent not running")

// Draining says what Drain asked of an agent.
type Draining struct {
	Agent string
	// Tasks are the tasks the agent had in hand, by its card, when asked.
	Tasks []string
}

// Drain asks running agent to drain (store.DrainRequest): it takes no new
// task, finishes those it has, then goes offline and its process exits.
// The agent sees the request at its next heartbeat. An agent whose card
// says it is offline (or whose heartbeat is older than offlineAfter) is
// refused with ErrNotRunning. The request is in the audit log.
func (o *Operator) Drain(ctx context.Context, agent string, offlineAfter time.Duration) (Draining, error) {
	if err := envelope.ValidateAgentID(agent); err != nil {
		return Draining{}, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	card, err := o.cfg.Store.Card(ctx, agent)
	if errors.Is(err, store.ErrUnknownAgent) {
		return Draining{}, fmt.Errorf("%w: no agent %q is registered", ErrUsage, agent)
	}
	if err != nil {
		return Draining{}, err
	}
	switch card.EffectiveStatus(o.cfg.Now(), offlineAfter) {
	case envelope.StatusOffline:
		return Draining{}, fmt.Errorf("drain %s: %w (its card says offline): nothing to drain", agent, ErrNotRunning)
	case envelope.StatusDraining:
		return Draining{Agent: agent, Tasks: card.CurrentTasks}, nil
	}
	if err := o.cfg.Store.RequestDrain(ctx, agent, store.DrainRequest{At: o.cfg.Now(), By: Actor}); err != nil {
		return Draining{}, err
	}
	o.record(ctx, store.EventDrain, fmt.Sprintf("asked %s to drain: it finishes its %d task(s), takes no new ones, then goes offline",
		agent, len(card.CurrentTasks)), store.Event{Agent: agent})
	return Draining{Agent: agent, Tasks: card.CurrentTasks}, nil
}
