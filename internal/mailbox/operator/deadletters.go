package operator

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// deadLetters returns the store's store.DeadLetters.
func (o *Operator) deadLetters(action string) (store.DeadLetters, error) {
	dl, ok := o.cfg.Store.(store.DeadLetters)
	if !ok {
		return nil, lacks(action, "cannot list or redeliver set-aside messages")
	}
	return dl, nil
}

// SetAside lists what agent's inbox set aside (every agent's when agent
// is ""), oldest first. An agent whose list cannot be read is skipped
// with a warning when listing every agent.
func (o *Operator) SetAside(ctx context.Context, agent string) ([]store.SetAside, error) {
	dl, err := o.deadLetters("dead")
	if err != nil {
		return nil, err
	}
	if agent != "" {
		if err := envelope.ValidateAgentID(agent); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		return dl.SetAside(ctx, agent)
	}
	agents, err := o.agents(ctx)
	if err != nil {
		return nil, err
	}
	var out []store.SetAside
	for _, a := range agents {
		items, err := dl.SetAside(ctx, a)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			o.cfg.Logger.Warn("list set-aside messages", "agent", a, "err", err)
			continue
		}
		out = append(out, items...)
	}
	slices.SortStableFunc(out, func(a, b store.SetAside) int { return a.Time.Compare(b.Time) })
	return out, nil
}

// agents returns every agent the store knows: the cards, the inboxes of
// agents that have none (the folder store knows them), and the agents
// with set-aside messages (NATS knows them).
func (o *Operator) agents(ctx context.Context) ([]string, error) {
	cards, err := o.cfg.Store.Cards(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cards {
		out = append(out, c.AgentID)
	}
	if ic, ok := o.cfg.Store.(store.InboxCounter); ok {
		more, err := ic.Agents()
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	if da, ok := o.cfg.Store.(store.DeadLetterAgents); ok {
		more, err := da.DeadLetterAgents(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Redeliver puts set-aside message ref of agent back into agent's inbox,
// as a copy under a fresh id (store.RedeliveryCopy says why), and records
// it. It returns the copy's id when it can tell.
func (o *Operator) Redeliver(ctx context.Context, agent, ref string) (string, error) {
	dl, err := o.deadLetters("redeliver")
	if err != nil {
		return "", err
	}
	if err := checkRef(agent, ref); err != nil {
		return "", err
	}
	var orig string
	if items, err := dl.SetAside(ctx, agent); err == nil {
		for _, it := range items {
			if it.Ref == ref && it.Message != nil {
				orig = it.Message.ID
			}
		}
	}
	if err := dl.Redeliver(ctx, agent, ref); err != nil {
		return "", err
	}
	what := "redelivered set-aside " + agent + "/" + ref
	o.record(ctx, store.EventOperator, what, store.Event{Ref: agent + "/" + ref, MessageID: orig})
	return orig, nil
}

// Discard removes set-aside message ref of agent for good, and records it.
func (o *Operator) Discard(ctx context.Context, agent, ref string) error {
	dl, err := o.deadLetters("discard")
	if err != nil {
		return err
	}
	if err := checkRef(agent, ref); err != nil {
		return err
	}
	if err := dl.Discard(ctx, agent, ref); err != nil {
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
