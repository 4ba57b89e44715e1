package operator

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// lacksDeadLetters is the error of action on a store that cannot list
// or redeliver set-aside messages.
func lacksDeadLetters(action string) error {
	return lacks(action, "cannot list or redeliver set-aside messages")
}

// SetAside lists what agent's inbox set aside (every agent's when agent
// is ""), oldest first. An agent whose list cannot be read is skipped
// with a warning when listing every agent.
func (o *Operator) SetAside(ctx context.Context, agent string) ([]store.SetAside, error) {
	if !o.cfg.Store.Has(store.CanDeadLetters) {
		return nil, lacksDeadLetters("dead")
	}
	if agent != "" {
		if err := envelope.ValidateAgentID(agent); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	return o.cfg.Store.SetAside(ctx, agent)
}

// Redeliver puts set-aside message ref of agent back into agent's inbox,
// as a copy under a fresh id (store.RedeliveryCopy says why), and records
// it. It returns the original's id.
func (o *Operator) Redeliver(ctx context.Context, agent, ref string) (string, error) {
	if !o.cfg.Store.Has(store.CanDeadLetters) {
		return "", lacksDeadLetters("redeliver")
	}
	if err := checkRef(agent, ref); err != nil {
		return "", err
	}
	msg, err := o.cfg.Store.Redeliver(ctx, agent, ref)
	if err != nil {
		return "", err
	}
	what := "redelivered set-aside " + agent + "/" + ref
	o.record(ctx, store.EventOperator, what, store.Event{Ref: agent + "/" + ref, MessageID: msg.ID})
	return msg.ID, nil
}

// Discard removes set-aside message ref of agent for good, and records it.
func (o *Operator) Discard(ctx context.Context, agent, ref string) error {
	if !o.cfg.Store.Has(store.CanDeadLetters) {
		return lacksDeadLetters("discard")
	}
	if err := checkRef(agent, ref); err != nil {
		return err
	}
	if err := o.cfg.Store.Discard(ctx, agent, ref); err != nil {
		return err
	}
	o.record(ctx, store.EventOperator, "discarded set-aside "+agent+"/"+ref, store.Event{Ref: agent + "/" + ref})
	return nil
}

// checkRef refuses an empty agent or ref.
func checkRef(agent, ref string) error {
	if err := envelope.ValidateAgentID(agent); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if ref == "" {
		return fmt.Errorf("%w: a set-aside message is named by its agent and its ref", ErrUsage)
	}
	return nil
}
