package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
)

// openOperator opens the store of an operator command (nothing is created
// with readOnly: op is nil when there is no store yet).
func (a *app) openOperator(readOnly bool) (*operator.Operator, *mailboxStore, error) {
	m, s, err := a.openMailbox(readOnly)
	if err != nil {
		return nil, nil, err
	}
	if m.be == nil {
		return nil, m, nil
	}
	var key *keys.Key
	if !readOnly {
		if key, err = a.operatorKey(context.Background(), m, s, false); err != nil {
			m.close()
			return nil, nil, err
		}
	}
	op, err := operator.New(operator.Config{Store: m.be, DefaultTTL: s.mailbox.DefaultTTL, Logger: a.logger(slog.LevelWarn), Key: key})
	if err != nil {
		m.close()
		return nil, nil, err
	}
	return op, m, nil
}

// deadLine is a set-aside message as dead --json prints it.
type deadLine struct {
	Agent  string    `json:"agent"`
	Ref    string    `json:"ref"`
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
	// ID, From and Type are the message's, when it can be read; Error
	// says why it cannot.
	ID    string `json:"id,omitempty"`
	From  string `json:"from,omitempty"`
	Type  string `json:"type,omitempty"`
	Error string `json:"error,omitempty"`
}

func (a *app) deadCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "dead [AGENT] [--json]",
		Short: "List the messages set aside (dead letters), with the reasons",
		Long: `Dead lists the messages the inboxes set aside rather than deliver: input
that cannot be read, a sender refused by policy, a message handed out too
often without being acknowledged (its receiver crashed on it), a reply that
would have carried a stalemate of two agents on ("stalemate: ...", see
channels.mailbox.limits.bounces). With AGENT,
only that agent's. Each is named AGENT/REF; redeliver or archive it with
switchboard redeliver.

On the filesystem store they are the files of <agent>/rejected/ with their
reason files; on NATS the dead-letter subject of each agent.`,
		Example: `  switchboard dead
  switchboard dead coder --json | jq -r '.agent + "/" + .ref'`,
		Args:              maxArgs("agent"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			agent := ""
			if len(args) == 1 {
				if err := envelope.ValidateAgentID(args[0]); err != nil {
					return asUsage(err)
				}
				agent = args[0]
			}
			return a.dead(cmd.Context(), agent, jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per set-aside message")
	return cmd
}

func (a *app) dead(ctx context.Context, agent string, jsonOut bool) error {
	op, m, err := a.openOperator(true)
	if err != nil {
		return err
	}
	defer m.close()
	var items []store.SetAside
	if op != nil {
		if items, err = op.SetAside(ctx, agent); err != nil {
			return err
		}
	}
	lines := make([]deadLine, 0, len(items))
	for _, it := range items {
		l := deadLine{Agent: it.Agent, Ref: it.Ref, Reason: it.Reason, Time: it.Time}
		if it.Message != nil {
			l.ID, l.From, l.Type = it.Message.ID, it.Message.From, string(it.Message.Type)
		} else if it.Err != nil {
			l.Error = it.Err.Error()
		}
		lines = append(lines, l)
	}
	if jsonOut {
		for _, l := range lines {
			if err := writeJSON(a.env.Stdout, l); err != nil {
				return err
			}
		}
		return nil
	}
	if len(lines) == 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "nothing set aside %s\n", m.in())
		return err
	}
	now := time.Now()
	w := a.table()
	row(w, "AGE", "NAME", "FROM", "TYPE", "ID", "REASON")
	for _, l := range lines {
		row(w, ago(now, l.Time), l.Agent+"/"+l.Ref, orDash(l.From), orDash(l.Type), orDash(l.ID), orDash(deadReason(l.Reason, l.Error)))
	}
	return w.Flush()
}

// deadReason is the REASON column of `dead`: why the message was set
// aside, and why it cannot be read when that says more (a message set
// aside as unreadable has the same text for both, said once).
func deadReason(reason, unreadable string) string {
	switch {
	case unreadable == "" || unreadable == reason:
		return reason
	case reason == "":
		return unreadable
	}
	return reason + " (" + unreadable + ")"
}

func (a *app) redeliverCommand() *cobra.Command {
	var discard bool
	cmd := &cobra.Command{
		Use:   "redeliver ID [--discard]",
		Short: "Put a set-aside message back into its inbox (or discard it)",
		Long: `Redeliver puts a message the inbox set aside back into the same inbox,
once the cause is dealt with. ID is AGENT/REF as switchboard dead prints it,
or the id of the message set aside.

The message comes back as a copy under a fresh id whose metadata
redelivered_from names the original: the receiver drops an id it has
handled, and setting a message aside counts as handling it (on NATS the
stream would also drop a republished id as a duplicate). Its thread, task,
reply_to and trace are kept, so it is answered where it belongs.

With --discard the message is removed for good instead. Either is recorded
in the audit log with the operator as actor.`,
		Example: `  switchboard redeliver coder/1714000000000_lead_ab12.msg.json
  switchboard redeliver 0196a1b2-... --discard`,
		Args:              exactArgs("id"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			return a.redeliver(cmd.Context(), args[0], discard)
		}),
	}
	cmd.Flags().BoolVar(&discard, "discard", false, "remove the set-aside message for good instead")
	return cmd
}

func (a *app) redeliver(ctx context.Context, id string, discard bool) error {
	op, m, err := a.openOperator(false)
	if err != nil {
		return err
	}
	defer m.close()
	it, err := op.FindSetAside(ctx, id)
	if err != nil {
		return err
	}
	name := it.Agent + "/" + it.Ref
	if discard {
		if err := op.Discard(ctx, it.Agent, it.Ref); err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.env.Stdout, "discarded %s\n", name)
		return err
	}
	if _, err := op.Redeliver(ctx, it.Agent, it.Ref); err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.env.Stdout, "redelivered %s to %s's inbox\n", name, it.Agent)
	return err
}

func (a *app) archiveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "archive ID",
		Short: "Archive a request that was answered",
		Long: `Archive checks that request ID (a message sent with expects_reply, or a
task) was answered, as the agent's own archive does, and records that the
operator archived it. It is refused while a reply is owed: answer first.

An answered request is archived by the agent that received it, at once when
it answers, at its next start when the answer came from elsewhere. While
that agent's process still holds the delivery (claimed, or waiting in its
inbox), no other process can release it, and archive says so.`,
		Example:           `  switchboard archive 0196a1b2-...`,
		Args:              exactArgs("id"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			op, m, err := a.openOperator(false)
			if err != nil {
				return err
			}
			defer m.close()
			done, err := op.Archive(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(a.env.Stdout, done)
			return err
		}),
	}
}

func (a *app) cancelCommand() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "cancel TASK [--reason TEXT]",
		Short: "Cancel a delegated task",
		Long: `Cancel ends a task that has not ended. The worker gets a task_update
"canceled" in its delegator's name, and the delegator one in its worker's
name, so the chat the task began in hears of it. Both are marked
sent_by: operator, and the audit log records the operator as actor.`,
		Example: `  switchboard cancel t-42 --reason "wrong repository"`,
		Args:    exactArgs("task"),
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			op, m, err := a.openOperator(false)
			if err != nil {
				return err
			}
			defer m.close()
			res, err := op.Cancel(cmd.Context(), args[0], reason)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.env.Stdout, "canceled task %s (%s → %s)\n", res.TaskID, res.From, res.To)
			return err
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", `why, as the agents read it (default "canceled by the operator")`)
	return cmd
}
