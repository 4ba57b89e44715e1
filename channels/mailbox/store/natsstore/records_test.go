package natsstore_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The records the facade keeps on NATS are the keys of the state bucket
// docs/backends.md names: an agent's record <agent>.<key>, an approval
// _approval.<id> and its decision _decision.<id>, as JSON. Records
// written so by hand (by an older version) read back as approvals.
func TestRecordKeysInTheStateBucket(t *testing.T) {
	ts := sharedServer(t)
	ctx := testkit.Ctx(t)
	st := store.New(ts.open(t, nil), nil)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	kv, err := js.KeyValue(ctx, ts.ns.StateBucket)
	require.NoError(t, err)

	require.NoError(t, st.SaveState(ctx, "bob", "sent-tasks", []byte(`[1]`)))
	e, err := kv.Get(ctx, "bob.sent-tasks")
	require.NoError(t, err)
	assert.Equal(t, `[1]`, string(e.Value()))

	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a := agent.Approval{ID: envelope.NewID(), Agent: "bob", Kind: "tool", Action: "run tool x", Created: now, Deadline: now.Add(time.Minute)}
	require.NoError(t, st.Approvals().PutApproval(ctx, a))
	d := agent.Decision{Allow: true, By: agent.Operator, Time: now}
	_, err = st.Approvals().DecideApproval(ctx, a.ID, d)
	require.NoError(t, err)
	for key, want := range map[string]any{"_approval." + a.ID: a, "_decision." + a.ID: d} {
		e, err := kv.Get(ctx, key)
		require.NoError(t, err, key)
		raw, err := json.Marshal(want)
		require.NoError(t, err)
		assert.JSONEq(t, string(raw), string(e.Value()), key)
	}

	old := agent.Approval{ID: envelope.NewID(), Agent: "carol", Kind: "task", Action: "work on a task from lead",
		Created: now.Add(-time.Minute), Deadline: now.Add(time.Hour)}
	raw, err := json.Marshal(old)
	require.NoError(t, err)
	_, err = kv.Create(ctx, "_approval."+old.ID, raw)
	require.NoError(t, err)
	_, err = kv.Create(ctx, "_decision."+old.ID, []byte(`{"allow":false,"by":"operator","time":"2026-05-01T12:00:00Z"}`))
	require.NoError(t, err)
	list, err := st.Approvals().ListApprovals(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, old.ID, list[0].ID, "oldest first")
	require.NotNil(t, list[0].Decision)
	assert.False(t, list[0].Decision.Allow)

	require.NoError(t, st.Approvals().DeleteApproval(ctx, old.ID))
	for _, key := range []string{"_approval." + old.ID, "_decision." + old.ID} {
		_, err := kv.Get(ctx, key)
		assert.ErrorIs(t, err, jetstream.ErrKeyNotFound, key)
	}
}

// A listing of the state bucket first asks one direct get whether any
// entry matches: none, an entry, and a deletion's marker (the listing
// then finds nothing, but the check must not say so alone); on a bucket
// without direct gets it cannot tell, and the store lists.
func TestNoneStoredAsksOneDirectGet(t *testing.T) {
	ts := sharedServer(t)
	ctx := testkit.Ctx(t)
	s := ts.open(t, nil)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	kv, err := js.KeyValue(ctx, ts.ns.StateBucket)
	require.NoError(t, err)

	assert.True(t, natsstore.NoneStored(s, ctx, "_approval.*"), "an empty bucket")
	_, err = kv.Put(ctx, "_approval.a-1", []byte(`{}`))
	require.NoError(t, err)
	assert.False(t, natsstore.NoneStored(s, ctx, "_approval.*"), "one approval")
	assert.True(t, natsstore.NoneStored(s, ctx, "_decision.*"), "another shelf")
	_, err = kv.Put(ctx, "bob.notes", []byte(`{}`))
	require.NoError(t, err)
	require.NoError(t, kv.Delete(ctx, "bob.notes"))
	assert.False(t, natsstore.NoneStored(s, ctx, "bob.*"), "a deletion's marker")
	keys, err := s.ListRecords(ctx, "bob")
	require.NoError(t, err)
	assert.Empty(t, keys, "the listing leaves the deleted key out")

	stream, err := js.Stream(ctx, "KV_"+ts.ns.StateBucket)
	require.NoError(t, err)
	cfg := stream.CachedInfo().Config
	cfg.AllowDirect = false
	_, err = js.UpdateStream(ctx, cfg)
	require.NoError(t, err)
	assert.False(t, natsstore.NoneStored(s, ctx, "_decision.*"), "no direct gets: the store cannot tell")
	keys, err = s.ListRecords(ctx, driver.ShelfDecisions)
	require.NoError(t, err)
	assert.Empty(t, keys)
}
