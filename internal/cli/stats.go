package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// statsFlags are the flags of stats.
type statsFlags struct {
	window, interval time.Duration
	watch, jsonOut   bool
}

func (a *app) statsCommand() *cobra.Command {
	var f statsFlags
	cmd := &cobra.Command{
		Use:   "stats [--window D] [--watch] [--json]",
		Short: "Show per agent: inbox depth and oldest age, message rates, tasks and tokens (read only)",
		Long: `Stats reads the mailbox store (channels.mailbox.backend; --root names a
mailbox folder instead) and prints one line per agent: the messages waiting
in its inbox and the age of the oldest, how many messages it sent, received
and acknowledged per minute over --window (from the audit log), the tasks
on its card, and the tokens its turns used over --window (the audit log's
usage entries), input and output. It needs no running host and no metrics
listener, and changes nothing.

On NATS the inbox is every message not acknowledged yet, pending or
claimed, read from the message history. --watch prints the figures again
every --interval until SIGINT/SIGTERM.`,
		Example: `  switchboard stats
  switchboard stats --window 10m --watch
  switchboard stats --json | jq 'select(.inbox_depth > 0)'`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			if f.window <= 0 {
				return usagef("--window %s: want a duration above 0 (10m, 1h)", f.window)
			}
			if f.interval < 100*time.Millisecond {
				return usagef("--interval %s: want at least 100ms", f.interval)
			}
			return a.stats(cmd.Context(), f)
		}),
	}
	fl := cmd.Flags()
	fl.DurationVar(&f.window, "window", time.Hour, "the span of time before now that rates and tokens are counted over")
	fl.BoolVar(&f.watch, "watch", false, "print the figures again every --interval until SIGINT/SIGTERM")
	fl.DurationVar(&f.interval, "interval", 5*time.Second, "how often --watch prints")
	fl.BoolVar(&f.jsonOut, "json", false, "print one JSON object per agent")
	return cmd
}

// agentStats is one agent's line of stats, as --json prints it.
type agentStats struct {
	Agent         string  `json:"agent"`
	Status        string  `json:"status"`
	InboxDepth    int     `json:"inbox_depth"`
	OldestSeconds float64 `json:"oldest_age_seconds"`
	// Per minute over WindowSeconds.
	SentPerMinute     float64 `json:"sent_per_minute"`
	ReceivedPerMinute float64 `json:"received_per_minute"`
	AckedPerMinute    float64 `json:"acknowledged_per_minute"`
	SetAside          int     `json:"set_aside"`
	Tasks             int     `json:"tasks"`
	MaxTasks          int     `json:"max_tasks"`
	Turns             int     `json:"turns"`
	InputTokens       int64   `json:"input_tokens"`
	OutputTokens      int64   `json:"output_tokens"`
	// CachedTokens is the part of InputTokens read from the provider's
	// prompt cache; CacheHits counts the usage entries (turns and
	// judgements) that read any.
	CachedTokens        int64   `json:"cached_tokens"`
	CacheHits           int     `json:"cache_hits"`
	WindowSeconds       float64 `json:"window_seconds"`
	sent, recv, handled int
}

func (a *app) stats(ctx context.Context, f statsFlags) error {
	for {
		if err := a.statsOnce(ctx, f); err != nil {
			if stopped(ctx, err) {
				return nil
			}
			return err
		}
		if !f.watch {
			return nil
		}
		t := time.NewTimer(f.interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		if !f.jsonOut {
			fmt.Fprintln(a.env.Stdout)
		}
	}
}

func (a *app) statsOnce(ctx context.Context, f statsFlags) error {
	m, s, err := a.openMailbox(true)
	if err != nil {
		return err
	}
	defer m.close()
	now := time.Now()
	var lines []*agentStats
	if m.be != nil {
		if lines, err = collectStats(ctx, m, now, seconds(s.mailbox.OfflineAfter), f.window, a.warn); err != nil {
			return err
		}
	}
	if f.jsonOut {
		for _, l := range lines {
			if err := writeJSON(a.env.Stdout, l); err != nil {
				return err
			}
		}
		return nil
	}
	if len(lines) == 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "no agents in %s\n", m.where)
		return err
	}
	w := a.table()
	row(w, "AGENT", "STATUS", "INBOX", "OLDEST", "SENT/MIN", "RECV/MIN", "ACKED/MIN", "SET ASIDE", "TASKS", "TURNS", "TOKENS IN", "CACHED", "TOKENS OUT")
	for _, l := range lines {
		oldest := "-"
		if l.InboxDepth > 0 {
			oldest = (time.Duration(l.OldestSeconds) * time.Second).String()
		}
		row(w, l.Agent, l.Status, l.InboxDepth, oldest, rate(l.SentPerMinute), rate(l.ReceivedPerMinute), rate(l.AckedPerMinute),
			l.SetAside, fmt.Sprintf("%d/%d", l.Tasks, l.MaxTasks), l.Turns, l.InputTokens, l.CachedTokens, l.OutputTokens)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.env.Stdout, "rates and tokens over the last %s\n", f.window)
	return err
}

func rate(v float64) string { return fmt.Sprintf("%.2f", v) }

// collectStats reads every agent's figures from the store: the cards and
// inboxes now, the audit log over window.
func collectStats(ctx context.Context, m *mailboxStore, now time.Time, offlineAfter, window time.Duration, warn func(error)) ([]*agentStats, error) {
	agents, err := listAgents(ctx, m, now, offlineAfter, warn)
	if err != nil {
		return nil, err
	}
	byID := map[string]*agentStats{}
	var out []*agentStats
	get := func(id string) *agentStats {
		if l, ok := byID[id]; ok {
			return l
		}
		l := &agentStats{Agent: id, Status: "unknown", WindowSeconds: window.Seconds()}
		byID[id] = l
		out = append(out, l)
		return l
	}
	for _, ag := range agents {
		l := get(ag.AgentID)
		l.Status, l.InboxDepth = string(ag.Effective), ag.InboxDepth
		l.Tasks, l.MaxTasks = len(ag.CurrentTasks), ag.MaxConcurrentTasks
		in, err := m.be.Backlog(ctx, ag.AgentID)
		ok := !errors.Is(err, store.ErrNotSupported)
		if err != nil && ok {
			return nil, fmt.Errorf("inbox of %s: %w", ag.AgentID, err)
		}
		if ok && !in.Oldest.IsZero() {
			l.InboxDepth, l.OldestSeconds = in.Depth, max(now.Sub(in.Oldest).Seconds(), 0)
		}
	}
	since := now.Add(-window)
	err = m.be.ReadAudit(ctx, func(ev store.Event) bool {
		if ev.Time.Before(since) {
			return true
		}
		switch ev.Kind {
		case store.EventSent:
			if ev.From != "" {
				get(ev.From).sent++
			}
		case store.EventDelivered:
			get(ev.Agent).recv++
		case store.EventProcessed:
			get(ev.Agent).handled++
		case store.EventRefused, store.EventQuarantined:
			get(ev.Agent).SetAside++
		case store.EventUsage:
			l := get(ev.Agent)
			l.Turns++
			l.InputTokens += ev.InputTokens
			l.OutputTokens += ev.OutputTokens
			l.CachedTokens += ev.CachedTokens
			if ev.CachedTokens > 0 {
				l.CacheHits++
			}
		}
		return true
	})
	if err != nil && !errors.Is(err, store.ErrNotSupported) && ctx.Err() == nil {
		warn(fmt.Errorf("rates and tokens not shown: the audit log cannot be read: %w", err))
	}
	minutes := window.Minutes()
	for _, l := range out {
		l.SentPerMinute, l.ReceivedPerMinute, l.AckedPerMinute = float64(l.sent)/minutes, float64(l.recv)/minutes, float64(l.handled)/minutes
	}
	return out, nil // the registered agents first, as agents lists them, then those only the log names
}
