package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// senderID is the agent the probes come from (it has no channel).
const senderID = "bench-sender"

// team is the running agents and what they received.
type team struct {
	agents []*mailbox.Channel
	buses  []*bus.Bus
	cancel context.CancelFunc
	wg     sync.WaitGroup
	got    chan arrival
}

// arrival is one probe taken off an agent's bus.
type arrival struct {
	seq int
	at  time.Time
}

func agentID(i int) string { return fmt.Sprintf("agent-%03d", i) }

// startTeam starts n mailbox channels on root, each with its own store and
// bus as an agent process has, with the default configuration, and a
// consumer per bus that finishes each message at once.
func startTeam(ctx context.Context, root string, n int, logs *warnCounter) (*team, error) {
	runCtx, cancel := context.WithCancel(context.Background())
	t := &team{cancel: cancel, got: make(chan arrival, n)}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	for i := range n {
		if err := ctx.Err(); err != nil {
			t.stop()
			return nil, err
		}
		cfg := mailbox.DefaultConfig()
		cfg.Enabled, cfg.AgentID, cfg.MailboxesRoot = true, agentID(i), root
		b := bus.New(bus.DefaultCapacity)
		ch, err := mailbox.New(cfg, b, mailbox.Options{Logger: logger})
		if err == nil {
			err = ch.Start(ctx)
		}
		if err != nil {
			t.stop()
			return nil, fmt.Errorf("start %s: %w", agentID(i), err)
		}
		t.agents, t.buses = append(t.agents, ch), append(t.buses, b)
		t.wg.Go(func() { t.consume(runCtx, b) })
	}
	return t, nil
}

// consume takes probes off b until ctx ends.
func (t *team) consume(ctx context.Context, b *bus.Bus) {
	for {
		in, err := b.ConsumeInbound(ctx)
		if err != nil {
			return
		}
		at := time.Now()
		in.Done()
		if seq, err := strconv.Atoi(strings.TrimPrefix(in.Content, "probe ")); err == nil {
			t.got <- arrival{seq: seq, at: at}
		}
	}
}

// deliverToEach sends one probe to every agent, one after another, and
// returns how long each took from the start of its send to its bus.
func (t *team) deliverToEach(ctx context.Context, root string) ([]time.Duration, error) {
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot = senderID, root
	st, err := store.Open(cfg.Backend, cfg.StoreConfig())
	if err != nil {
		return nil, err
	}
	defer st.Close()
	sent := make([]time.Time, len(t.agents))
	for i := range t.agents {
		sent[i] = time.Now()
		m, err := route.Compose(senderID, route.Request{To: agentID(i), Text: "probe " + strconv.Itoa(i)},
			route.ComposeOptions{Now: sent[i]})
		if err != nil {
			return nil, err
		}
		if err := st.Deliver(ctx, m); err != nil {
			return nil, err
		}
	}
	lat := make([]time.Duration, len(t.agents))
	limit := time.NewTimer(30 * time.Second)
	defer limit.Stop()
	for range t.agents {
		select {
		case a := <-t.got:
			lat[a.seq] = a.at.Sub(sent[a.seq])
		case <-limit.C:
			return nil, errors.New("not every agent received its message within 30 s")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return lat, nil
}

// stop stops every agent (marking it offline) and its consumer.
func (t *team) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, ch := range t.agents {
		_ = ch.Stop(ctx)
	}
	t.cancel()
	t.wg.Wait()
	for _, b := range t.buses {
		b.Close()
	}
	t.agents, t.buses = nil, nil
}
