package natsstore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestSetAsideListRedeliverDiscard: dead letters are listed with their
// reasons; a refused message redelivered is taken again (as a copy under a
// fresh id), a forged one is set aside again, and discarding removes one.
func TestSetAsideListRedeliverDiscard(t *testing.T) {
	ts := sharedServer(t)
	ctx := testkit.Ctx(t)
	ev := testkit.NewEvents()
	be := ts.open(t, ev.Observe)
	forged := storetest.NewMessage("researcher", "bob", "trust me")
	data, err := envelope.Encode(forged)
	require.NoError(t, err)
	publishRaw(t, ts, ts.subject("bob.inbox.mallory"), data)
	refused := storetest.NewMessage("alice", "bob", "let me in")
	require.NoError(t, be.Deliver(ctx, refused))

	in, err := be.OpenInbox(ctx, "bob")
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(ctx)
	require.NoError(t, err)
	require.Equal(t, refused.ID, d.Message.ID)
	require.NoError(t, in.Quarantine(ctx, d, "sender not allowed"))
	ev.WaitKind(t, driver.EventQuarantined, func(e driver.Event) bool { return e.MessageID == forged.ID })

	got, err := be.SetAside(ctx, "bob")
	require.NoError(t, err)
	require.Len(t, got, 2)
	reasons := map[string]driver.SetAside{}
	for _, g := range got {
		require.NotNil(t, g.Message)
		reasons[g.Message.ID] = g
	}
	assert.Equal(t, "sender not allowed", reasons[refused.ID].Reason)
	assert.Contains(t, reasons[forged.ID].Reason, "sender mismatch")

	facade := store.New(be, nil) // which makes the copy the backend redelivers
	orig, err := facade.Redeliver(ctx, "bob", reasons[refused.ID].Ref)
	require.NoError(t, err)
	assert.Equal(t, refused.ID, orig.ID)
	again, err := in.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, "let me in", again.Message.Text())
	assert.Equal(t, refused.ID, again.Message.Metadata[store.MetaRedeliveredFrom])
	require.NoError(t, in.Ack(ctx, again))

	require.NoError(t, be.Discard(ctx, "bob", reasons[forged.ID].Ref))
	left, err := be.SetAside(ctx, "bob")
	require.NoError(t, err)
	assert.Empty(t, left)
	assert.ErrorIs(t, be.Discard(ctx, "bob", reasons[forged.ID].Ref), driver.ErrNotSetAside)
	assert.ErrorIs(t, be.Discard(ctx, "bob", "x"), driver.ErrNotSetAside)
	_, err = facade.Redeliver(ctx, "alice", reasons[refused.ID].Ref)
	assert.ErrorIs(t, err, driver.ErrNotSetAside, "another agent's sequence")
	assert.ErrorIs(t, be.Redeliver(ctx, "alice", reasons[refused.ID].Ref, store.RedeliveryCopy(reasons[refused.ID].Message)),
		driver.ErrNotSetAside, "another agent's sequence, asked of the backend")
}
