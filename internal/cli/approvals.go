package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/spf13/cobra"
)

// approvalLine is an approval as approvals --json prints it.
type approvalLine struct {
	agent.Approval
	// State is waiting, approved, denied (decided, not yet picked up by
	// its agent), or expired (undecided past its deadline: its agent no
	// longer waits; it counts as denied).
	State string `json:"state"`
}

func (a *app) approvalsCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "approvals [--json] | approvals approve|deny ID [--reason TEXT]",
		Short: "List the approvals agents wait for, and decide them",
		Long: `Approvals lists the tool calls and tasks that agents wait to have
approved (agents.defaults.approval in their config), from every agent of
the store, oldest first. "approvals approve ID" and "approvals deny ID"
decide one: the waiting agent sees the decision within seconds and goes on
(or tells its model the step was denied). The first decision stands, be it
the chat's, the operator's or the timeout's; each is in the audit log.

An approval whose agent stopped while it waited is listed as expired: it
counts as denied, cannot be approved, and "approvals deny ID" removes it.
The agent removes its own when it starts again, and running agents remove
those decided or expired more than an hour ago.`,
		Example: `  switchboard approvals
  switchboard approvals approve 0196a1b2-...
  switchboard approvals deny 0196a1b2-... --reason "not on a Friday"`,
		Args: maxArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return a.approvals(cmd.Context(), jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per approval")
	cmd.AddCommand(a.decideCommand(true), a.decideCommand(false))
	return cmd
}

func (a *app) approvals(ctx context.Context, jsonOut bool) error {
	op, m, err := a.openOperator(true)
	if err != nil {
		return err
	}
	defer m.close()
	var list []agent.Approval
	if op != nil {
		if list, err = op.Approvals(ctx); err != nil {
			return err
		}
	}
	if jsonOut {
		for _, ap := range list {
			state := "waiting"
			switch {
			case ap.Decision != nil:
				state = ap.Decision.Verb()
			case op.Expired(ap):
				state = "expired"
			}
			if err := writeJSON(a.env.Stdout, approvalLine{Approval: ap, State: state}); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "no approvals waiting %s\n", m.in())
		return err
	}
	now := time.Now()
	w := a.table()
	row(w, "ID", "AGENT", "ASKED", "STATE", "ACTION", "DETAIL", "CHAT")
	expired := 0
	for _, ap := range list {
		state := "waiting, " + shortDuration(max(0, ap.Deadline.Sub(now))) + " left"
		switch {
		case ap.Decision != nil:
			state = ap.Decision.Verb() + " by " + ap.Decision.By + ", not picked up"
		case op.Expired(ap):
			state = "expired " + ago(now, ap.Deadline) + ", agent gone"
			expired++
		}
		chat := "-"
		if ap.Channel != "" {
			chat = ap.Channel + ":" + ap.ChatID
		}
		row(w, ap.ID, ap.Agent, ago(now, ap.Created), state, ap.Action, orDash(ap.Detail), chat)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if expired > 0 {
		_, err = fmt.Fprintf(a.env.Stdout, "%d expired: no agent waits for them (it stopped while waiting); they count as denied. "+
			"\"switchboard approvals deny ID\" removes one; the agent removes its own when it starts again, "+
			"and any running agent removes them %s after their deadline.\n", expired, shortDuration(agent.ApprovalKeep))
	}
	return err
}

func (a *app) decideCommand(allow bool) *cobra.Command {
	var reason string
	verb, short := "deny", "Deny a waiting approval"
	if allow {
		verb, short = "approve", "Approve a waiting approval"
	}
	cmd := &cobra.Command{
		Use:               verb + " ID [--reason TEXT]",
		Short:             short,
		Args:              exactArgs("id"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			op, m, err := a.openOperator(false)
			if err != nil {
				return err
			}
			defer m.close()
			ap, err := op.Decide(cmd.Context(), args[0], allow, reason)
			if err != nil {
				return err
			}
			if ap.Removed {
				_, err = fmt.Fprintf(a.env.Stdout, "%s: %s for %s (it had expired: removed)\n", ap.Decision.Verb(), ap.Action, ap.Agent)
				return err
			}
			_, err = fmt.Fprintf(a.env.Stdout, "%s: %s for %s\n", ap.Decision.Verb(), ap.Action, ap.Agent)
			return err
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, as the agent's model reads it")
	return cmd
}
