package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// reserveFlags are the flags of reserve and release.
type reserveFlags struct {
	as, reason string
	ttl        time.Duration
	shared     bool
	jsonOut    bool
}

func (a *app) reserveCommand() *cobra.Command {
	var f reserveFlags
	cmd := &cobra.Command{
		Use:   "reserve --as AGENT [--ttl D] [--shared] [--reason TEXT] PATH...",
		Short: "Reserve paths or globs of the shared workspace for an agent, for a while",
		Long: `Reserve takes a reservation of each PATH (a path or a glob of the
workspace the team shares: * and ? within a name, ** for any number of
folders, as in docs/**) for agent --as, for --ttl, and prints them. It is
all of them or none: when another agent holds an overlapping reservation
(an exclusive one, or any when this one is exclusive), nothing is
reserved, the holders are printed with their expiry, and the exit status
is 1. Reserving a path the agent holds already renews it.

Reservations expire by themselves; "switchboard release" ends them sooner.
They are advice the agents keep, not locks on the files.`,
		Example: `  switchboard reserve --as coder --ttl 30m --reason "parser rewrite" src/parser/**
  switchboard reserve --as reviewer --shared docs/api.md`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("missing argument PATH")
			}
			return nil
		},
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			if err := envelope.ValidateAgentID(f.as); err != nil {
				return usagef("--as: %v", err)
			}
			if f.ttl < time.Second || f.ttl > store.MaxReservationTTL {
				return usagef("--ttl %s: want 1s to %s", f.ttl, store.MaxReservationTTL)
			}
			return a.reserve(cmd.Context(), f, args)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.as, "as", "", "the agent that holds the reservations (required)")
	fl.DurationVar(&f.ttl, "ttl", store.DefaultReservationTTL, "how long they last")
	fl.BoolVar(&f.shared, "shared", false, "shared reservations (others may hold shared ones too); exclusive by default")
	fl.StringVar(&f.reason, "reason", "", "what the agent does there, for the others")
	fl.BoolVar(&f.jsonOut, "json", false, "print one JSON object per reservation")
	return cmd
}

func (a *app) reserve(ctx context.Context, f reserveFlags, paths []string) error {
	r, m, err := a.openReservations(false)
	if err != nil {
		return err
	}
	defer m.close()
	got, err := r.Reserve(ctx, store.ReserveRequest{Agent: f.as, Patterns: paths, TTL: f.ttl, Shared: f.shared,
		Reason: f.reason, Now: time.Now()})
	if err != nil {
		return err
	}
	return a.printReservations(got, f.jsonOut, "")
}

func (a *app) releaseCommand() *cobra.Command {
	var f reserveFlags
	cmd := &cobra.Command{
		Use:   "release --as AGENT [PATH...]",
		Short: "End an agent's reservations (those of PATH, or all)",
		Long: `Release ends agent --as's reservations of each PATH (as it was reserved,
or a reservation's id), or all of that agent's, and prints what it ended.`,
		Example: `  switchboard release --as coder src/parser/**
  switchboard release --as coder`,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			if err := envelope.ValidateAgentID(f.as); err != nil {
				return usagef("--as: %v", err)
			}
			r, m, err := a.openReservations(false)
			if err != nil {
				return err
			}
			defer m.close()
			ended, err := r.Release(cmd.Context(), f.as, args, time.Now())
			if err != nil {
				return err
			}
			return a.printReservations(ended, f.jsonOut, f.as+" held no such reservation")
		}),
	}
	cmd.Flags().StringVar(&f.as, "as", "", "the agent whose reservations end (required)")
	cmd.Flags().BoolVar(&f.jsonOut, "json", false, "print one JSON object per reservation ended")
	return cmd
}

func (a *app) reservationsCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "reservations [PATH] [--json]",
		Short: "List the reservations in force: who holds which paths, until when (read only)",
		Long: `Reservations lists the reservations of the shared workspace in force,
by path then agent; with PATH, only those that cover it (or overlap it,
for a glob).`,
		Example: `  switchboard reservations
  switchboard reservations src/parser/lexer.go`,
		Args:              maxArgs("path"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			r, m, err := a.openReservations(true)
			if err != nil {
				return err
			}
			defer m.close()
			var list []store.Reservation
			if r != nil {
				if list, err = r.List(cmd.Context(), path, time.Now()); err != nil {
					return err
				}
			}
			return a.printReservations(list, jsonOut, "no reservations "+m.in())
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per reservation")
	return cmd
}

// openReservations opens the store's reservations; with readOnly a store
// that does not exist gives nil ones.
func (a *app) openReservations(readOnly bool) (*store.Reservations, *mailboxStore, error) {
	m, _, err := a.openMailbox(readOnly)
	if err != nil {
		return nil, nil, err
	}
	if m.be == nil {
		return nil, m, nil
	}
	r, err := m.be.Reservations()
	if err != nil {
		m.close()
		return nil, nil, err
	}
	return r, m, nil
}

// printReservations prints reservations as a table (none: the line
// empty), or one JSON object each.
func (a *app) printReservations(list []store.Reservation, jsonOut bool, empty string) error {
	if jsonOut {
		for _, r := range list {
			if err := writeJSON(a.env.Stdout, r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		if empty == "" {
			return nil
		}
		_, err := fmt.Fprintln(a.env.Stdout, empty)
		return err
	}
	now := time.Now()
	w := a.table()
	row(w, "PATH", "AGENT", "KIND", "EXPIRES", "REASON", "ID")
	for _, r := range list {
		kind := "shared"
		if r.Exclusive {
			kind = "exclusive"
		}
		row(w, r.Pattern, r.Agent, kind, "in "+shortDuration(max(0, r.Expires.Sub(now))), orDash(r.Reason), r.ID)
	}
	return w.Flush()
}
