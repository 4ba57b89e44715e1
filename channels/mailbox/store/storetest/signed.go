package storetest

import (
	"testing"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testSignedVerifies: a signed message, every field set, verifies against
// its signer's key after the store handed it over: at once, again after a
// crash (redelivered), and, where the store keeps what it sets aside, as
// the copy the operator hands back (store.Store.Redeliver: a fresh id,
// the original's in metadata redelivered_from). A copy whose text was
// changed on the way does not.
func (s *suite) testSignedVerifies(t *testing.T) {
	be := s.world(t).open(t, nil)
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	deadline := envelope.NewTime(time.Now().Add(time.Hour))
	m := NewMessage("alice", "bob", "signed <&> 排序")
	m.Type = envelope.TypeTask
	m.Task = &envelope.Task{ID: "task-s", State: envelope.StatePending, Deadline: &deadline,
		Budget: &envelope.Budget{Tokens: 10, Cost: 0.25}}
	m.Callback = &envelope.Callback{Channel: "feishu", ChatID: "c1"}
	m.Content.Parts = append(m.Content.Parts, envelope.DataPart(map[string]any{"n": 1.5, "big": int64(1) << 62, "nil": nil}),
		envelope.FilePart("/tmp/x"))
	m.ReplyTo, m.Subject, m.ExpectsReply, m.Priority = "parent-id", "sorting", true, 2
	m.Metadata = map[string]any{"k": "v"}
	m.Traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	require.NoError(t, envelope.Sign(m, kp))
	tampered := NewMessage("alice", "bob", "original")
	require.NoError(t, envelope.Sign(tampered, kp))
	tampered.Content.Parts[0].Text = "changed"
	Deliver(t, be, m, tampered)

	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	d := Next(t, in)
	require.Equal(t, m.ID, d.Message.ID)
	require.NoError(t, envelope.VerifySignature(d.Message, kp), "as handed over")
	require.NoError(t, in.Close())

	in = OpenInbox(t, be, "bob")
	d = Next(t, in)
	require.Equal(t, m.ID, d.Message.ID)
	require.True(t, d.Redelivered)
	require.NoError(t, envelope.VerifySignature(d.Message, kp), "as handed over again after a crash")
	bad := ExpectNext(t, in, tampered.ID)
	assert.ErrorIs(t, envelope.VerifySignature(bad.Message, kp), envelope.ErrBadSignature)

	if !be.Has(store.CanDeadLetters) {
		Ack(t, in, d)
		return
	}
	require.NoError(t, in.Quarantine(testkit.Ctx(t), d, "set aside to be handed back"))
	var ref string
	items, err := be.SetAside(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	for _, it := range items {
		if it.Message != nil && it.Message.ID == m.ID {
			ref = it.Ref
		}
	}
	require.NotEmpty(t, ref, "the set-aside message is listed: %+v", items)
	_, err = be.Redeliver(testkit.Ctx(t), "bob", ref)
	require.NoError(t, err)
	c := Next(t, in)
	require.NotEqual(t, m.ID, c.Message.ID, "a copy under a fresh id")
	assert.Equal(t, m.ID, c.Message.Metadata[envelope.MetaRedeliveredFrom])
	require.NoError(t, envelope.VerifySignature(c.Message, kp), "the operator's copy verifies as its original")
	Ack(t, in, c)
}
