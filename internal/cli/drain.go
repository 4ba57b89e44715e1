package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
)

func (a *app) drainCommand() *cobra.Command {
	var (
		wait    bool
		timeout float64
	)
	cmd := &cobra.Command{
		Use:   "drain AGENT [--wait [--timeout SECONDS]]",
		Short: "Ask a running agent to finish its tasks, take no new ones, and go offline",
		Long: `Drain asks a running agent to drain: its card says "draining" (other
agents' any:, cap: and role: routing of tasks skips it, nanobot sees it
online and not idle), every new task is rejected with the reason
"draining: AGENT finishes the tasks it has and takes no new ones" (so that
its delegator offers it elsewhere or escalates it), the tasks it has run to
their end, and then it goes offline and its switchboard run exits 0.

The request is a record in the store (<agent>/state/drain.json on the
folder store, the state bucket on NATS) that the agent looks for at every
heartbeat (channels.mailbox.heartbeatInterval), from any machine; on NATS
drain also nudges the agent (core NATS, mailbox.<agent>.nudge.drain), which
then looks at once, and otherwise only every twelfth heartbeat. The agent
heeds only a request made while it runs. On the agent's own machine,
kill -USR1 PID does the same at once. The request is in the audit log.

With --wait, drain waits until the agent is offline (at most --timeout
seconds, 300 by default) and fails if it is not.`,
		Example: `  switchboard drain coder
  switchboard drain coder --wait --timeout 60`,
		Args:              exactArgs("agent"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			if err := envelope.ValidateAgentID(args[0]); err != nil {
				return asUsage(err)
			}
			if !(timeout > 0 && timeout <= 86400) {
				return usagef("--timeout %v: want a number of seconds above 0, at most 86400", timeout)
			}
			return a.drainAgent(cmd.Context(), args[0], wait, time.Duration(timeout*float64(time.Second)))
		}),
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the agent is offline")
	cmd.Flags().Float64Var(&timeout, "timeout", 300, "with --wait: seconds to wait at most")
	return cmd
}

func (a *app) drainAgent(ctx context.Context, agent string, wait bool, timeout time.Duration) error {
	op, m, err := a.openOperator(false)
	if err != nil {
		return err
	}
	defer m.close()
	s, err := a.settings()
	if err != nil {
		return err
	}
	offlineAfter := seconds(s.mailbox.OfflineAfter)
	d, err := op.Drain(ctx, agent, offlineAfter)
	if errors.Is(err, operator.ErrUsage) {
		return asUsage(err)
	}
	if err != nil {
		return err
	}
	tasks := "no task in hand"
	if len(d.Tasks) > 0 {
		tasks = fmt.Sprintf("%d task(s) in hand (%s)", len(d.Tasks), strings.Join(d.Tasks, ", "))
	}
	if _, err := fmt.Fprintf(a.env.Stdout, "asked %s to drain: %s; it takes no new task and goes offline when done\n", agent, tasks); err != nil {
		return err
	}
	if !wait {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		card, err := m.be.Card(ctx, agent)
		if err == nil && card.EffectiveStatus(time.Now(), offlineAfter) == envelope.StatusOffline {
			_, err = fmt.Fprintf(a.env.Stdout, "%s is offline\n", agent)
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not go offline within %s: it still works on its tasks (switchboard agents shows them)", agent, timeout)
		case <-tick.C:
		}
	}
}
