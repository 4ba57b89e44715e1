package storetest

import (
	"context"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func (s *suite) runErrors(t *testing.T) {
	t.Run("InboxBusy", testkit.Parallel(s.testInboxBusy))
	t.Run("InboxClosed", testkit.Parallel(s.testInboxClosed))
	t.Run("BackendClosed", testkit.Parallel(s.testBackendClosed))
	t.Run("ContextCanceled", testkit.Parallel(s.testCanceled))
}

// testInboxBusy: an inbox is owned by one opener at a time, in this
// process or another; closing it frees it.
func (s *suite) testInboxBusy(t *testing.T) {
	w := s.world(t)
	be, other := w.open(t, nil), w.open(t, nil)
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	_, err = be.OpenInbox(testkit.Ctx(t), "bob")
	assert.ErrorIs(t, err, store.ErrInboxBusy, "same backend")
	_, err = other.OpenInbox(testkit.Ctx(t), "bob")
	assert.ErrorIs(t, err, store.ErrInboxBusy, "another process")
	carol := OpenInbox(t, other, "carol")
	require.NotNil(t, carol, "other inboxes are free")
	require.NoError(t, in.Close())
	require.NoError(t, in.Close(), "closing twice is harmless")
	OpenInbox(t, other, "bob")
}

// testInboxClosed: Close ends a waiting Next with ErrClosed; later calls
// fail with ErrClosed.
func (s *suite) testInboxClosed(t *testing.T) {
	be := s.world(t).open(t, nil)
	Deliver(t, be, NewMessage("alice", "bob", "x"))
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	d := Next(t, in)
	waiting := make(chan error, 1)
	go func() {
		_, err := in.Next(testkit.Ctx(t))
		waiting <- err
	}()
	require.NoError(t, in.Close())
	assert.ErrorIs(t, <-waiting, store.ErrClosed, "the waiting Next")
	_, err = in.Next(testkit.Ctx(t))
	assert.ErrorIs(t, err, store.ErrClosed, "Next after Close")
	assert.ErrorIs(t, in.Ack(testkit.Ctx(t), d), store.ErrClosed, "Ack after Close")
	assert.ErrorIs(t, in.Quarantine(testkit.Ctx(t), d, "x"), store.ErrClosed, "Quarantine after Close")
}

// testBackendClosed: a closed backend refuses work with ErrClosed, and
// its open inboxes are closed with it.
func (s *suite) testBackendClosed(t *testing.T) {
	be := s.world(t).open(t, nil)
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	require.NoError(t, be.Close())
	ctx := testkit.Ctx(t)
	_, err = in.Next(ctx)
	assert.ErrorIs(t, err, store.ErrClosed, "inbox of a closed backend")
	assert.ErrorIs(t, be.Deliver(ctx, NewMessage("alice", "bob", "x")), store.ErrClosed, "Deliver")
	_, err = be.OpenInbox(ctx, "carol")
	assert.ErrorIs(t, err, store.ErrClosed, "OpenInbox")
	_, err = be.UpdateCard(ctx, "bob", func(*envelope.Card) {})
	assert.ErrorIs(t, err, store.ErrClosed, "UpdateCard")
	_, err = be.Card(ctx, "bob")
	assert.ErrorIs(t, err, store.ErrClosed, "Card")
	_, err = be.Cards(ctx)
	assert.ErrorIs(t, err, store.ErrClosed, "Cards")
	assert.NoError(t, be.Close(), "closing twice is harmless")
}

// testCanceled: a canceled context stops a waiting Next and refuses new
// work, and the inbox stays usable.
func (s *suite) testCanceled(t *testing.T) {
	be := s.world(t).open(t, nil)
	in := OpenInbox(t, be, "bob")
	ctx, cancel := context.WithCancel(t.Context())
	waiting := make(chan error, 1)
	go func() {
		_, err := in.Next(ctx)
		waiting <- err
	}()
	cancel()
	assert.ErrorIs(t, <-waiting, context.Canceled, "the waiting Next")
	_, err := in.Next(ctx)
	assert.ErrorIs(t, err, context.Canceled, "Next with a canceled context")
	assert.ErrorIs(t, be.Deliver(ctx, NewMessage("alice", "bob", "x")), context.Canceled, "Deliver")
	_, err = be.UpdateCard(ctx, "bob", func(*envelope.Card) {})
	assert.ErrorIs(t, err, context.Canceled, "UpdateCard")
	_, err = be.OpenInbox(ctx, "carol")
	assert.ErrorIs(t, err, context.Canceled, "OpenInbox")

	m := NewMessage("alice", "bob", "after cancel")
	Deliver(t, be, m)
	ExpectNext(t, in, m.ID)
}
