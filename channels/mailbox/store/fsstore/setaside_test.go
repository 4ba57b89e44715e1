package fsstore

import (
	"cmp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestSetAsideListRedeliverDiscard: what an inbox set aside is listed with
// its reason, a readable message goes back to the inbox and is taken
// again, an unreadable one cannot be redelivered but can be discarded.
func TestSetAsideListRedeliverDiscard(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	ctx := testkit.Ctx(t)
	refused := newMsg("mallory", "bob", "let me in")
	deliver(t, s, refused)
	bad := early + "a_broken" + envelope.MessageSuffix
	writeRaw(t, agentPath(s, "bob", inboxDir), bad, []byte(`{"id": "x", "from": `))

	in := openTestInbox(t, s, "bob")
	d := next(t, in)
	require.Equal(t, refused.ID, d.Message.ID)
	require.NoError(t, in.Quarantine(ctx, d, "sender not allowed"))

	got, err := s.SetAside(ctx, "bob")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, bad, got[0].Ref, "oldest first")
	assert.Nil(t, got[0].Message)
	assert.Contains(t, got[0].Reason, "malformed")
	assert.Contains(t, string(got[0].Raw), `"from"`)
	require.NotNil(t, got[1].Message)
	assert.Equal(t, refused.ID, got[1].Message.ID)
	assert.Equal(t, "sender not allowed", got[1].Reason)
	assert.False(t, got[1].Time.IsZero())

	st := store.New(s, nil) // the facade makes the copy that Redeliver stores
	_, err = st.Redeliver(ctx, "bob", bad)
	require.Error(t, err, "an unreadable entry is not redelivered")
	orig, err := st.Redeliver(ctx, "bob", got[1].Ref)
	require.NoError(t, err)
	assert.Equal(t, refused.ID, orig.ID, "the original is returned")
	again := next(t, in)
	assert.Equal(t, "let me in", again.Message.Text(), "taken again")
	assert.Equal(t, refused.ID, again.Message.Metadata[store.MetaRedeliveredFrom])
	assert.Equal(t, cmp.Or(refused.ThreadID, refused.ID), again.Message.ThreadID, "the thread stays")

	require.NoError(t, s.Discard(ctx, "bob", bad))
	left, err := s.SetAside(ctx, "bob")
	require.NoError(t, err)
	assert.Empty(t, left)

	for _, ref := range []string{bad, "../inbox/x.msg.json", "", ".hidden", bad + reasonSuffix} {
		err := s.Discard(ctx, "bob", ref)
		assert.ErrorIs(t, err, driver.ErrNotSetAside, "ref %q", ref)
	}
	none, err := s.SetAside(ctx, "nobody")
	require.NoError(t, err)
	assert.Empty(t, none)
	_, err = s.SetAside(ctx, "../x")
	assert.Error(t, err)
}
