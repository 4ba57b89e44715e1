package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/internal/mailbox/waits"
)

// waitsLine is what waits --json prints: a wait, or a cycle (with
// "broken" once --break broke it).
type waitsLine struct {
	*waits.Wait
	Cycle  *waits.Cycle `json:"deadlock,omitempty"`
	Broken string       `json:"broken,omitempty"`
}

func (a *app) waitsCommand() *cobra.Command {
	var jsonOut, breakThem bool
	cmd := &cobra.Command{
		Use:   "waits [--json] [--break]",
		Short: "Show which agents' tasks wait on which subtasks, and the deadlocks",
		Long: `Waits shows the wait-for graph of the mailbox, read from the records
each delegator keeps of the tasks it sent: a task at agent A that waits on a
subtask it delegated to agent B. A cycle (A waits on B, B waits on A, or
longer) is a deadlock: none of its tasks can end until one of its subtasks
does, and it is listed after the waits.

--break breaks each deadlock: the subtask of the cycle's youngest wait (the
one that closed it) fails with the reason "deadlock broken: A → B → A: ...";
its worker is told canceled, its delegator failed, each in the other's
name, so the delegator's task goes on without it (or fails in turn, and the
chat it began in is told). Each break is in the audit log. Exit 1 when
deadlocks are listed and not broken.`,
		Example: `  switchboard waits
  switchboard waits --break`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return a.waits(cmd.Context(), jsonOut, breakThem)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per wait, then per deadlock")
	cmd.Flags().BoolVar(&breakThem, "break", false, "break each deadlock by failing its youngest wait's subtask")
	return cmd
}

func (a *app) waits(ctx context.Context, jsonOut, breakThem bool) error {
	op, m, err := a.openOperator(!breakThem)
	if err != nil {
		return err
	}
	defer m.close()
	if m.be == nil {
		_, err := fmt.Fprintf(a.env.Stdout, "no task waits %s\n", m.in())
		return err
	}
	g, problems, err := waits.Load(ctx, m.be)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(a.env.Stderr, "switchboard: warning:", p)
	}
	cycles := g.Cycles()
	broken := make([]string, len(cycles))
	if breakThem {
		for i, c := range cycles {
			b, err := op.BreakDeadlock(ctx, c)
			if err != nil {
				return err
			}
			broken[i] = b.Wait.Subtask
		}
	}
	if err := a.printWaits(g, cycles, broken, jsonOut); err != nil {
		return err
	}
	if len(cycles) > 0 && !breakThem {
		return fmt.Errorf("%d deadlock(s): switchboard waits --break fails the youngest wait of each", len(cycles))
	}
	return nil
}

func (a *app) printWaits(g waits.Graph, cycles []waits.Cycle, broken []string, jsonOut bool) error {
	if jsonOut {
		for i := range g.Waits {
			if err := writeJSON(a.env.Stdout, waitsLine{Wait: &g.Waits[i]}); err != nil {
				return err
			}
		}
		for i := range cycles {
			if err := writeJSON(a.env.Stdout, waitsLine{Cycle: &cycles[i], Broken: broken[i]}); err != nil {
				return err
			}
		}
		return nil
	}
	if len(g.Waits) == 0 {
		_, err := fmt.Fprintln(a.env.Stdout, "no task waits on a subtask")
		return err
	}
	now := time.Now()
	w := a.table()
	row(w, "AGENT", "TASK", "WAITS ON", "SUBTASK", "STATE", "SINCE")
	for _, x := range g.Waits {
		row(w, x.Agent, x.Task, x.On, x.Subtask, string(x.State), ago(now, x.Since))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for i, c := range cycles {
		y := c.Youngest()
		what := fmt.Sprintf("deadlock: %s (youngest wait: %s's subtask %s at %s)", c, y.Agent, y.Subtask, y.On)
		if broken[i] != "" {
			what += "; broken: " + broken[i] + " failed"
		}
		if _, err := fmt.Fprintln(a.env.Stdout, what); err != nil {
			return err
		}
	}
	return nil
}
