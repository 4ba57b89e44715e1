package limits_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func config() limits.Config {
	return limits.Config{
		PerEdge:      limits.Rate{Rate: 6, Per: "minute", Burst: 2},
		PerAgent:     limits.Rate{Rate: 1, Per: "second", Burst: 3},
		PerSender:    limits.Rate{Rate: 60, Per: "minute", Burst: 2},
		Breaker:      limits.Breaker{Failures: 3, Window: 60, CoolDown: 120},
		MaxTaskDepth: 4,
	}
}

func TestSendPerEdgeAndPerAgent(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(t0)
	g := limits.New(config(), "lead", clk, nil, nil)
	require.NoError(t, g.AllowSend("coder", envelope.TypeTask))
	require.NoError(t, g.AllowSend("coder", envelope.TypeMessage))
	err := g.AllowSend("coder", envelope.TypeMessage)
	require.ErrorIs(t, err, route.ErrRateLimited, "burst 2 to one agent")
	wait, ok := route.RetryAfter(err)
	require.True(t, ok)
	assert.Equal(t, 10*time.Second, wait, "6 a minute: one every 10 s")
	assert.Contains(t, err.Error(), "send lead → coder: rate limited: over 6/minute, burst 2 to one agent (channels.mailbox.limits.perEdge); wait 10s before sending to coder again")
	assert.NoError(t, g.AllowSend("coder", envelope.TypeTaskUpdate), "a task's updates are never refused")

	require.NoError(t, g.AllowSend("reviewer", envelope.TypeMessage), "another edge has its own bucket")
	err = g.AllowSend("tester", envelope.TypeMessage)
	require.ErrorIs(t, err, route.ErrRateLimited, "perAgent burst 3 spent")
	assert.Contains(t, err.Error(), "over 1/second, burst 3 in all (channels.mailbox.limits.perAgent)")
	// The refused send took no perEdge token of tester: after one second
	// (one perAgent token back) it goes.
	clk.Add(time.Second)
	require.NoError(t, g.AllowSend("tester", envelope.TypeMessage))
	clk.Add(10 * time.Second)
	require.NoError(t, g.AllowSend("coder", envelope.TypeMessage), "a token back after 10 s")
	assert.Equal(t, int64(2), g.Stats().SendLimited)
	assert.Equal(t, int64(1), g.Stats().AgentLimited, "one by perAgent, one by perEdge")
}

func TestReceivePerSender(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(t0)
	g := limits.New(config(), "coder", clk, nil, nil)
	m := func(from string, typ envelope.Type, at time.Time) *envelope.Message {
		return &envelope.Message{From: from, To: "coder", Type: typ, Timestamp: envelope.NewTime(at)}
	}
	assert.Empty(t, g.AllowReceive(m("flood", envelope.TypeMessage, t0)))
	assert.Empty(t, g.AllowReceive(m("flood", envelope.TypeTask, t0)))
	reason := g.AllowReceive(m("flood", envelope.TypeMessage, t0))
	assert.Equal(t, "rate limit: sender flood over 60/minute, burst 2 (channels.mailbox.limits.perSender); it may send again in 1s", reason)
	assert.Empty(t, g.AllowReceive(m("flood", envelope.TypeTaskUpdate, t0)), "updates are not counted")
	assert.Empty(t, g.AllowReceive(m("calm", envelope.TypeMessage, t0)), "another sender is not affected")
	clk.Add(time.Second)
	assert.Empty(t, g.AllowReceive(m("flood", envelope.TypeMessage, t0.Add(time.Second))), "sent a second later")
	assert.NotEmpty(t, g.AllowReceive(m("flood", envelope.TypeMessage, t0.Add(time.Hour))),
		"a time after now counts as now: no tokens from the future")
	assert.Equal(t, int64(2), g.Stats().ReceiveLimited)

	// A backlog written at a calm pace while the agent was down, read at
	// once when it comes back: no flood.
	later := t0.Add(time.Hour)
	clk.Set(later)
	for i := range 30 {
		at := later.Add(-30*time.Minute + time.Duration(i)*time.Minute)
		assert.Empty(t, g.AllowReceive(m("patient", envelope.TypeMessage, at)), "message %d", i)
	}
}

func TestRateOffLimitsNothing(t *testing.T) {
	t.Parallel()
	g := limits.New(limits.Config{MaxTaskDepth: 1}, "lead", clock.NewManual(t0), nil, nil)
	for range 1000 {
		require.NoError(t, g.AllowSend("coder", envelope.TypeMessage))
		require.Empty(t, g.AllowReceive(&envelope.Message{From: "coder", Type: envelope.TypeMessage}))
	}
	g.Failure(context.Background(), "coder", "task rejected")
	assert.NoError(t, g.AllowSend("coder", envelope.TypeTask), "breakers off")
}

func TestBreakerOpensAndCools(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(t0)
	hub := memstore.NewHub()
	st := store.New(hub.Open(memstore.Options{}), nil)
	g := limits.New(config(), "lead", clk, st, nil)
	ctx := context.Background()

	g.Failure(ctx, "coder", "delivery failed")
	clk.Add(61 * time.Second) // the first failure leaves the window
	g.Failure(ctx, "coder", "task rejected: over capacity")
	g.Failure(ctx, "coder", "task rejected: over capacity")
	require.NoError(t, g.AllowSend("coder", envelope.TypeTask), "2 failures within the window: still closed")
	g.Failure(ctx, "coder", "task rejected: declined: busy")
	err := g.AllowSend("coder", envelope.TypeTask)
	require.ErrorIs(t, err, route.ErrBreakerOpen)
	assert.False(t, errors.Is(err, route.ErrRateLimited))
	assert.Contains(t, err.Error(), "circuit breaker open: 3 failures within 60s, the last: task rejected: declined: busy (channels.mailbox.limits.breaker); wait 2m0s")
	assert.NoError(t, g.AllowSend("coder", envelope.TypeTaskUpdate), "updates still go")
	assert.NoError(t, g.AllowSend("reviewer", envelope.TypeTask), "other recipients are not affected")

	// Another process reads the open breaker.
	open, err := limits.ReadBreakers(ctx, store.New(hub.Open(memstore.Options{}), nil), []string{"lead", "coder"}, clk.Now())
	require.NoError(t, err)
	require.Len(t, open["coder"], 1)
	assert.Equal(t, "lead", open["coder"][0].By)
	assert.Equal(t, t0.Add(61*time.Second+120*time.Second), open["coder"][0].Until)

	clk.Add(119 * time.Second)
	require.ErrorIs(t, g.AllowSend("coder", envelope.TypeMessage), route.ErrBreakerOpen)
	g.Failure(ctx, "coder", "ignored while open")
	clk.Add(time.Second)
	require.NoError(t, g.AllowSend("coder", envelope.TypeMessage), "closed after the cool-down")
	open, err = limits.ReadBreakers(ctx, st, []string{"lead"}, clk.Now())
	require.NoError(t, err)
	assert.Empty(t, open, "an expired breaker is not shown")
	g.Failure(ctx, "coder", "again")
	assert.NoError(t, g.AllowSend("coder", envelope.TypeMessage), "counting afresh")
	assert.Equal(t, limits.Stats{SendLimited: 0, BreakerTrips: 1, BreakerRefusals: 2}, g.Stats())
}

func TestReadBreakersCorrupt(t *testing.T) {
	t.Parallel()
	st := store.New(memstore.NewHub().Open(memstore.Options{}), nil)
	require.NoError(t, st.SaveState(context.Background(), "lead", limits.StateKey, []byte("{")))
	_, err := limits.ReadBreakers(context.Background(), st, []string{"lead"}, t0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `read the breakers of "lead": corrupt record`)
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	def := limits.DefaultConfig()
	require.NoError(t, def.Validate("channels.mailbox.limits"))
	for _, tt := range []struct {
		name string
		edit func(*limits.Config)
		want string
	}{
		{"unit", func(c *limits.Config) { c.PerEdge.Per = "fortnight" }, `channels.mailbox.limits.perEdge.per: want "second", "minute" or "hour", got "fortnight"`},
		{"negative", func(c *limits.Config) { c.PerAgent.Rate = -1 }, "channels.mailbox.limits.perAgent.rate: want a number of messages"},
		{"no burst", func(c *limits.Config) { c.PerSender.Burst = 0 }, "channels.mailbox.limits.perSender.burst: want at least 1"},
		{"failures", func(c *limits.Config) { c.Breaker.Failures = -1 }, "channels.mailbox.limits.breaker.failures: want 0 (off) or more"},
		{"window", func(c *limits.Config) { c.Breaker.Window = 0 }, "channels.mailbox.limits.breaker.window: want a number of seconds"},
		{"depth", func(c *limits.Config) { c.MaxTaskDepth = 0 }, "channels.mailbox.limits.maxTaskDepth: want at least 1"},
		{"bounces", func(c *limits.Config) { c.Bounces = -1 }, "channels.mailbox.limits.bounces: want 0 (off) or more, got -1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := limits.DefaultConfig()
			tt.edit(&c)
			err := c.Validate("channels.mailbox.limits")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	off := limits.DefaultConfig()
	off.PerEdge = limits.Rate{}
	off.Breaker = limits.Breaker{}
	off.Bounces = 0
	assert.NoError(t, off.Validate("x"), "0 turns a limit off")
	assert.Equal(t, "no limit", off.PerEdge.String())
}

// Sends, with its buckets in the store between calls (a process each),
// gives the answers of the in-memory guard (TestSendPerEdgeAndPerAgent).
func TestSendsKeptInTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.New(memstore.NewHub().Open(memstore.Options{}), nil)
	now := t0
	send := func(to ...string) []error {
		t.Helper()
		errs, err := limits.Sends(ctx, config(), st, "lead", to, now)
		require.NoError(t, err)
		return errs
	}
	assert.Equal(t, []error{nil, nil}, send("coder", "coder"))
	errs := send("coder")
	require.ErrorIs(t, errs[0], route.ErrRateLimited, "burst 2 to one agent")
	wait, _ := route.RetryAfter(errs[0])
	assert.Equal(t, 10*time.Second, wait, "6 a minute: one every 10 s")
	assert.EqualError(t, errs[0], "send lead → coder: rate limited: over 6/minute, burst 2 to one agent (channels.mailbox.limits.perEdge); wait 10s before sending to coder again")

	errs = send("reviewer", "tester")
	assert.NoError(t, errs[0], "another edge has its own bucket")
	require.ErrorIs(t, errs[1], route.ErrRateLimited, "perAgent burst 3 spent")
	assert.Contains(t, errs[1].Error(), "over 1/second, burst 3 in all (channels.mailbox.limits.perAgent)")
	now = now.Add(time.Second)
	assert.Equal(t, []error{nil}, send("tester"), "the refused send took no perEdge token")
	now = now.Add(10 * time.Second)
	assert.Equal(t, []error{nil}, send("coder"), "a token back after 10 s")

	require.NoError(t, st.SaveState(ctx, "lead", limits.SendsKey, []byte("{")))
	assert.Equal(t, []error{nil}, send("coder"), "an unreadable record starts full")
	off := config()
	off.PerEdge, off.PerAgent = limits.Rate{}, limits.Rate{}
	errs, err := limits.Sends(ctx, off, st, "lead", []string{"coder", "coder", "coder", "coder"}, now)
	require.NoError(t, err)
	assert.Equal(t, make([]error, 4), errs, "rate 0: no limit")
}
