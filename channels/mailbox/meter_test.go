package mailbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

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
