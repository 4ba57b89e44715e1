package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// NewMessage returns a valid message of type "message" from one agent to
// another with one text part and a fresh id, stamped and numbered in the
// order mailbox.Compose does it (time first, then id).
func NewMessage(from, to, text string) *envelope.Message {
	now := envelope.NewTime(time.Now())
	return &envelope.Message{
		ID: envelope.NewID(), From: from, To: to, Timestamp: now,
		Type: envelope.TypeMessage, TTL: envelope.DefaultTTL - 1, Trace: []string{from},
		Content:  envelope.Content{Parts: []envelope.Part{envelope.TextPart(text)}},
		Metadata: map[string]any{},
	}
}

// Sender is what delivers messages: a *store.Store, or a backend itself
// (driver.Backend) in a backend's own tests.
type Sender interface {
	Deliver(ctx context.Context, msg *envelope.Message) error
}

// Inbox is what the helpers take messages from: a *store.Inbox, or a
// backend's own (driver.Inbox).
type Inbox interface {
	Next(ctx context.Context) (*store.Delivery, error)
	Ack(ctx context.Context, d *store.Delivery) error
}

// Deliver delivers each message or fails the test.
func Deliver(t *testing.T, be Sender, msgs ...*envelope.Message) {
	t.Helper()
	for _, m := range msgs {
		require.NoError(t, be.Deliver(testkit.Ctx(t), m), "deliver %s", m.ID)
	}
}

// OpenInbox opens agent's inbox and closes it when the test ends.
func OpenInbox(t *testing.T, be *store.Store, agent string) *store.Inbox {
	t.Helper()
	in, err := be.OpenInbox(testkit.Ctx(t), agent)
	require.NoError(t, err, "open inbox of %q", agent)
	t.Cleanup(func() { in.Close() })
	return in
}

// Next returns the next delivery, waiting up to testkit.WaitLimit.
func Next(t *testing.T, in Inbox) *store.Delivery {
	t.Helper()
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err, "next delivery")
	require.NotNil(t, d)
	require.NotNil(t, d.Message)
	return d
}

// Ack acknowledges d or fails the test.
func Ack(t *testing.T, in Inbox, d *store.Delivery) {
	t.Helper()
	require.NoError(t, in.Ack(testkit.Ctx(t), d), "ack %s", d.Message.ID)
}

// ExpectNext takes the next delivery, checks that it is message id and
// acknowledges it. Delivering a fresh message and expecting it next is how
// the suite shows that nothing else was pending, without waiting for
// something not to happen.
func ExpectNext(t *testing.T, in Inbox, id string) *store.Delivery {
	t.Helper()
	d := Next(t, in)
	require.Equal(t, id, d.Message.ID, "next message: %q from %s", d.Message.Text(), d.Message.From)
	Ack(t, in, d)
	return d
}

// drain takes n deliveries, acknowledging each, and returns them.
func drain(t *testing.T, in Inbox, n int) []*envelope.Message {
	t.Helper()
	out := make([]*envelope.Message, 0, n)
	for range n {
		d := Next(t, in)
		Ack(t, in, d)
		out = append(out, d.Message)
	}
	return out
}
