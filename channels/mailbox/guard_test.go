package mailbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestFloodSetAsideOthersKept: a sender over perSender has its excess set
// aside in rejected/ with the reason (a task is answered rejected), while
// every message of another sender, interleaved with the flood, reaches
// the agent.
func TestFloodSetAsideOthersKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	flooder := e.peer(t, "flood")
	var floodIDs, calmIDs []string
	for i := range 12 {
		m := msg("flood", "coder", envelope.TypeMessage, fmt.Sprintf("spam %d", i))
		if i == 11 {
			m = task("flood", "coder", "task_spam", "more spam")
		}
		e.deliver(t, m)
		floodIDs = append(floodIDs, m.ID)
		if i%4 == 0 {
			c := msg("calm", "coder", envelope.TypeMessage, fmt.Sprintf("note %d", i))
			e.deliver(t, c)
			calmIDs = append(calmIDs, c.ID)
		}
	}
	clk := clock.NewManual(time.Now()) // never moves: no token comes back
	cfg := e.config("coder")
	cfg.Limits.PerSender = limits.Rate{Rate: 6, Per: "minute", Burst: 4}
	a := e.start(t, cfg, mailbox.Options{Clock: clk})

	got := map[string]int{}
	for range 4 + len(calmIDs) {
		got[a.consume(t).SenderID]++
	}
	assert.Equal(t, map[string]int{"flood": 4, "calm": len(calmIDs)}, got, "burst 4 of the flood, every calm message")
	for _, id := range floodIDs[4:] {
		ev := e.waitEvent(t, store.EventRefused, id)
		assert.Contains(t, ev.Reason, "rate limit: sender flood over 6/minute, burst 4 (channels.mailbox.limits.perSender); it may send again in 10s")
	}
	up := flooder.expectUpdate(t, "task_spam", envelope.StateRejected)
	assert.Contains(t, up.Task.Reason, "rate limit: sender flood")

	// Set aside with the reason beside each, as other refusals are.
	rejected, err := os.ReadDir(filepath.Join(e.root, "coder", "rejected"))
	require.NoError(t, err)
	reasons := 0
	for _, f := range rejected {
		if !strings.HasSuffix(f.Name(), ".reason.json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(e.root, "coder", "rejected", f.Name()))
		require.NoError(t, err)
		var rec struct{ Reason, From string }
		require.NoError(t, json.Unmarshal(data, &rec))
		assert.Equal(t, "flood", rec.From)
		reasons++
	}
	assert.Equal(t, len(floodIDs)-4, reasons)
	assert.Equal(t, int64(len(floodIDs)-4), a.LimitStats().ReceiveLimited)
}

// TestSendOverLimitRefused: a send over perEdge fails with a LimitError
// saying how long to wait, and delivers nothing; a reply is not counted.
func TestSendOverLimitRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	clk := clock.NewManual(time.Now())
	cfg := e.config("lead")
	cfg.Limits.PerEdge = limits.Rate{Rate: 0.5, Per: "second", Burst: 2}
	a := e.start(t, cfg, mailbox.Options{Clock: clk})
	ctx := context.Background()
	p := e.peer(t, "coder")
	for i := range 2 {
		_, err := a.Post(ctx, route.Request{To: "coder", Text: fmt.Sprint("hello ", i)})
		require.NoError(t, err)
	}
	_, err := a.Post(ctx, route.Request{To: "coder", Text: "one too many"})
	require.ErrorIs(t, err, route.ErrRateLimited)
	wait, ok := route.RetryAfter(err)
	require.True(t, ok)
	assert.Equal(t, 2*time.Second, wait)
	assert.Contains(t, err.Error(), "wait 2s before sending to coder again")

	// coder asks something; the answer is a reply, which the limit spares.
	q := msg("coder", "lead", envelope.TypeMessage, "a question")
	q.ExpectsReply = true
	e.deliver(t, q)
	in := a.consume(t)
	_, err = a.Post(ctx, route.Request{To: "coder", Text: "the answer", ReplyTo: in.ID})
	require.NoError(t, err)
	p.expect(t, "the answer", func(m *envelope.Message) bool { return m.Text() == "the answer" })

	clk.Add(2 * time.Second)
	_, err = a.Post(ctx, route.Request{To: "coder", Text: "later"})
	require.NoError(t, err, "a token came back")
	p.expect(t, "later", func(m *envelope.Message) bool { return m.Text() == "later" })
	for _, m := range p.seen.All() {
		assert.NotEqual(t, "one too many", m.Text())
	}
}

// TestBreakerOpensOnRejectedTasks: tasks rejected by one recipient open
// its breaker; sends to it then fail fast until the cool-down ends, and
// the open breaker is saved where another process reads it.
func TestBreakerOpensOnRejectedTasks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	clk := clock.NewManual(time.Now())
	cfg := e.config("lead")
	cfg.Limits.Breaker = limits.Breaker{Failures: 2, Window: 60, CoolDown: 30}
	a := e.start(t, cfg, mailbox.Options{Clock: clk})
	ctx := context.Background()
	p := e.peer(t, "coder")
	for i := range 2 {
		sent, err := a.Post(ctx, route.Request{To: "coder", Type: envelope.TypeTask, Text: fmt.Sprint("job ", i)})
		require.NoError(t, err)
		p.expect(t, "the task", func(m *envelope.Message) bool { return m.ID == sent.ID })
		up := msg("coder", "lead", envelope.TypeTaskUpdate, "")
		up.Task = &envelope.Task{ID: sent.Task.ID, State: envelope.StateRejected, Reason: "over capacity (3 of 3 tasks running)"}
		up.ReplyTo = sent.ID
		e.deliver(t, up)
		a.consume(t)
	}
	_, err := a.Post(ctx, route.Request{To: "coder", Type: envelope.TypeTask, Text: "job 3"})
	require.ErrorIs(t, err, route.ErrBreakerOpen)
	assert.Contains(t, err.Error(), "2 failures within 60s, the last: task rejected: over capacity (3 of 3 tasks running)")
	assert.Contains(t, err.Error(), "wait 30s")
	_, err = a.Post(ctx, route.Request{To: "reviewer", Text: "other agents are fine"})
	require.NoError(t, err)

	open, err := limits.ReadBreakers(ctx, e.st, []string{"lead", "coder"}, clk.Now())
	require.NoError(t, err)
	require.Len(t, open["coder"], 1)
	assert.Equal(t, "lead", open["coder"][0].By)
	assert.Equal(t, limits.Stats{BreakerTrips: 1, BreakerRefusals: 1}, a.LimitStats())

	clk.Add(30 * time.Second)
	_, err = a.Post(ctx, route.Request{To: "coder", Type: envelope.TypeTask, Text: "job 4"})
	require.NoError(t, err, "closed after the cool-down")
}

// meterCall is one call of a recordingMeter.
type meterCall struct {
	what        string // event kind, "sent" or "delivered"
	id          string
	typ         envelope.Type
	redelivered bool
}

// recordingMeter records what a channel tells its Meter.
type recordingMeter struct{ calls *testkit.Log[meterCall] }

func (r recordingMeter) Event(ev store.Event) {
	r.calls.Add(meterCall{what: "event:" + string(ev.Kind), id: ev.MessageID})
}

func (r recordingMeter) Sent(m *envelope.Message) {
	r.calls.Add(meterCall{what: "sent", id: m.ID, typ: m.Type})
}

func (r recordingMeter) Delivered(m *envelope.Message, redelivered bool, _ time.Time) {
	r.calls.Add(meterCall{what: "delivered", id: m.ID, typ: m.Type, redelivered: redelivered})
}

// The Meter hears the store's events of the channel's own store, each
// message handed to the agent and each message sent; Tasks counts the
// tasks in hand.
func TestMeterHearsWhatTheChannelDoes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rec := recordingMeter{calls: testkit.NewLog[meterCall]()}
	observed := testkit.NewEvents()
	b := bus.New(16)
	defer b.Close()
	ch, err := mailbox.New(e.config("coder"), b, mailbox.Options{Observer: observed.Observe})
	require.NoError(t, err)
	ch.SetMeter(rec)
	assert.Equal(t, mailbox.TaskCounts{Delegated: map[envelope.TaskState]int{}}, ch.Tasks(), "nothing before Start")
	require.NoError(t, ch.Start(context.Background()))
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancel()
		require.NoError(t, ch.Stop(ctx))
	}()
	a := &member{Channel: ch, bus: b}

	hello := msg("alice", "coder", envelope.TypeMessage, "hello")
	e.deliver(t, hello)
	in := a.take(t)
	got := rec.calls.WaitFor(t, "delivered", func(c meterCall) bool { return c.what == "delivered" })
	assert.Equal(t, meterCall{what: "delivered", id: hello.ID, typ: envelope.TypeMessage}, got)
	in.Done()
	rec.calls.WaitFor(t, "processed", func(c meterCall) bool { return c.what == "event:processed" && c.id == hello.ID })
	observed.WaitKind(t, store.EventProcessed, testkit.ByID(hello.ID)) // the Options' Observer hears them too

	work := task("alice", "coder", "t-1", "sort 3 1")
	e.deliver(t, work)
	a.take(t)
	rec.calls.WaitFor(t, "the task delivered", func(c meterCall) bool { return c.what == "delivered" && c.id == work.ID })
	assert.Equal(t, 1, ch.Tasks().Working)
	accepted := rec.calls.WaitFor(t, "the acceptance sent", func(c meterCall) bool { return c.what == "sent" })
	assert.Equal(t, envelope.TypeTaskUpdate, accepted.typ)

	sent, err := ch.Post(context.Background(), route.Request{To: "writer", Type: envelope.TypeTask, Text: "write it"})
	require.NoError(t, err)
	assert.Equal(t, meterCall{what: "sent", id: sent.ID, typ: envelope.TypeTask},
		rec.calls.WaitFor(t, "sent", func(c meterCall) bool { return c.what == "sent" && c.id == sent.ID }))
	assert.Equal(t, map[envelope.TaskState]int{envelope.StatePending: 1}, ch.Tasks().Delegated)

	e.deliverRaw(t, "coder", "alice", "{not json")
	rec.calls.WaitFor(t, "the bad file set aside", func(c meterCall) bool { return c.what == "event:quarantined" })
}

// The running channel applies the retention bounds at start.
func TestChannelPrunesAtStart(t *testing.T) {
	w := newConvWorld(t)
	old := newTestMessage(t, "lead", "coder")
	require.NoError(t, w.store.Deliver(context.Background(), old))
	in, err := w.store.OpenInbox(context.Background(), "coder")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	d, err := in.Next(ctx)
	require.NoError(t, err)
	require.NoError(t, in.Ack(ctx, d))
	require.NoError(t, in.Close())
	w.clock.Add(8 * 24 * time.Hour) // older than processedMaxAge (7 days)

	w.start("coder")
	ev := w.seen.waitFor(t, store.EventPruned, "")
	assert.Equal(t, "coder", ev.Agent)
	assert.Contains(t, ev.Reason, "removed 1 file(s)")
}

func newTestMessage(t *testing.T, from, to string) *envelope.Message {
	t.Helper()
	m, err := route.Compose(from, route.Request{To: to, Text: "x"}, route.ComposeOptions{})
	require.NoError(t, err)
	return m
}

var _ driver.Pruner = (*fsstore.Inbox)(nil)

// A message set aside by perSender and put back by an operator (the
// store's Redeliver, as switchboard redeliver does) is taken: redelivery
// is the operator's decision, and the copy keeps the sender's timestamp,
// by which the limit would set it aside again at once, for ever.
func TestRedeliveredCopyPassesPerSender(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := msg("flood", "coder", envelope.TypeMessage, "one")
	second := msg("flood", "coder", envelope.TypeMessage, "two")
	e.deliver(t, first)
	e.deliver(t, second)
	clk := clock.NewManual(time.Now()) // never moves: no token comes back
	cfg := e.config("coder")
	cfg.Limits.PerSender = limits.Rate{Rate: 1, Per: "hour", Burst: 1}
	a := e.start(t, cfg, mailbox.Options{Clock: clk})
	assert.Equal(t, "one", a.consume(t).Content)
	ev := e.waitEvent(t, store.EventRefused, second.ID)

	_, err := e.st.Redeliver(testkit.Ctx(t), "coder", ev.Ref)
	require.NoError(t, err)
	in := a.consume(t)
	assert.Equal(t, "two", in.Content)
	assert.NotEqual(t, second.ID, in.ID, "the copy, under a fresh id")
	assert.Equal(t, second.ID, e.waitEvent(t, store.EventProcessed, in.ID).ThreadID)

	third := msg("flood", "coder", envelope.TypeMessage, "three")
	e.deliver(t, third)
	assert.Contains(t, e.waitEvent(t, store.EventRefused, third.ID).Reason, "rate limit", "the sender's own messages are still limited")
}
