package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/escalate"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
)

// escalationLine is an escalation as escalations --json prints it.
type escalationLine struct {
	store.Escalation
	// At is the level asked now; State is waiting, or decided (its agent
	// has not acted on the decision yet).
	At    string `json:"at"`
	State string `json:"state"`
}

func (a *app) escalationsCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "escalations [--json] | escalations decide ID retry|reassign AGENT|cancel|takeover [--reason TEXT]",
		Short: "List the escalations of stuck work, and decide them",
		Long: `Escalations lists the stuck work that waits for a decision
(channels.mailbox.escalation in an agent's config: a task rejected by every
holder, failed, not accepted in time, overdue, a stalemate or a deadlock),
from every agent of the store, oldest first: the task, what was asked, who
tried and what each said, the level asked now and how long it has.

"escalations decide ID ACTION" decides one as the operator, whatever level
it has reached: retry (the same worker or group again), reassign AGENT,
cancel (the user is told), or takeover (you take the task into your own
hands: it ends and the user is told). The agent that escalated acts on it
within seconds. The first decision stands, be it a level agent's, the
chat's or the operator's; each step is in the audit log (kind escalation).`,
		Example: `  switchboard escalations
  switchboard escalations decide 0196a1b2-... retry
  switchboard escalations decide 0196a1b2-... reassign erin --reason "erin knows this code"`,
		Args: maxArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return a.escalations(cmd.Context(), jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per escalation")
	cmd.AddCommand(a.escalationDecideCommand())
	return cmd
}

func (a *app) escalations(ctx context.Context, jsonOut bool) error {
	op, m, err := a.openOperator(true)
	if err != nil {
		return err
	}
	defer m.close()
	var list []store.Escalation
	if op != nil {
		if list, err = op.Escalations(ctx); err != nil {
			return err
		}
	}
	if jsonOut {
		for _, e := range list {
			state := "waiting"
			if e.Decision != nil {
				state = "decided"
			}
			if err := writeJSON(a.env.Stdout, escalationLine{Escalation: e, At: e.At(), State: state}); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "no escalations waiting %s\n", m.in())
		return err
	}
	now := time.Now()
	w := a.table()
	row(w, "ID", "AGENT", "TASK", "TRIGGER", "ASKED", "AT", "STATE", "TRIED")
	for _, e := range list {
		state := "waiting, " + shortDuration(max(0, e.Due.Sub(now))) + " left"
		if e.Decision != nil {
			state = "decided: " + escalate.Decided(*e.Decision) + ", not acted on yet"
		}
		at := e.At()
		if e.AskedAt != "" && e.AskedAt != at {
			at += " (" + e.AskedAt + ")"
		}
		row(w, e.ID, e.Agent, e.TaskID, e.Trigger, ago(now, e.Created), at, state, escalate.Quote(e.Asked)+": "+escalate.Tried(e))
	}
	return w.Flush()
}

func (a *app) escalationDecideCommand() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "decide ID retry|reassign AGENT|cancel|takeover [--reason TEXT]",
		Short: "Decide a waiting escalation",
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) < 2:
				return usagef("want ID and an action: retry, reassign AGENT, cancel or takeover")
			case strings.EqualFold(args[1], store.ActReassign) && len(args) != 3:
				return usagef("reassign needs the agent: escalations decide ID reassign AGENT")
			case !strings.EqualFold(args[1], store.ActReassign) && len(args) != 2:
				return usagef("unexpected argument %q", args[2])
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			op, m, err := a.openOperator(false)
			if err != nil {
				return err
			}
			defer m.close()
			agent := ""
			if len(args) == 3 {
				agent = args[2]
			}
			e, err := op.DecideEscalation(cmd.Context(), args[0], args[1], agent, reason)
			if errors.Is(err, operator.ErrUsage) {
				return asUsage(err)
			}
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.env.Stdout, "decided: %s of %s's task %s; %s acts on it now\n",
				escalate.Decided(*e.Decision), e.Agent, e.TaskID, e.Agent)
			return err
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, for the audit log and the user")
	return cmd
}
