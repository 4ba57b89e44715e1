package natsstore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

// openAudited opens a store on its own connection with the audit log on
// or off.
func (ts *testServer) openAudited(t *testing.T, on bool, obs store.Observer) *natsstore.Store {
	t.Helper()
	opts := testOptions(ts.connect(t), obs)
	opts.AuditLog = on
	return openWith(t, opts)
}

// readAudit returns the audit log.
func readAudit(t *testing.T, r store.AuditReader) []store.Event {
	t.Helper()
	var got []store.Event
	require.NoError(t, r.ReadAudit(waitCtx(t), func(ev store.Event) bool { got = append(got, ev); return true }))
	return got
}

// TestAuditLogFromTwoStores: the events of a sender's store and of the
// receiver's store (its own and the one the channel records) are read
// back from a third store, in the order they happened, each written by
// the agent that acted. Close waits until the entries are stored.
func TestAuditLogFromTwoStores(t *testing.T) {
	ts := startServer(t, "")
	sender, receiver := ts.openAudited(t, true, nil), ts.openAudited(t, true, nil)
	m := storetest.NewMessage("alice", "bob", "hello")
	m.ThreadID = "th-9"
	require.NoError(t, sender.Deliver(waitCtx(t), m))
	require.NoError(t, sender.Close())

	in, err := receiver.OpenInbox(waitCtx(t), "bob")
	require.NoError(t, err)
	d, err := in.Next(waitCtx(t))
	require.NoError(t, err)
	require.NoError(t, receiver.Record(waitCtx(t), store.Event{Kind: store.EventDelivered, Agent: "bob",
		MessageID: m.ID, From: m.From, ThreadID: m.ThreadID}))
	require.NoError(t, in.Ack(waitCtx(t), d))
	require.NoError(t, in.Close())
	require.NoError(t, receiver.Close())

	got := readAudit(t, ts.openAudited(t, false, nil))
	var kinds []store.EventKind
	for _, ev := range got {
		kinds = append(kinds, ev.Kind)
		assert.Equal(t, m.ID, ev.MessageID)
		assert.Equal(t, "bob", ev.Agent)
		assert.Equal(t, "alice", ev.From)
		assert.False(t, ev.Time.IsZero())
	}
	assert.Equal(t, []store.EventKind{store.EventSent, store.EventClaimed, store.EventDelivered, store.EventProcessed}, kinds)
	assert.Equal(t, "th-9", got[2].ThreadID, "recorded as given")
}

// TestAuditLogOff: with AuditLog off, Record and the store's own events
// still reach the Observer and nothing is written.
func TestAuditLogOff(t *testing.T) {
	ts := startServer(t, "")
	ev := storetest.NewEvents()
	be := ts.openAudited(t, false, ev.Observe)
	m := storetest.NewMessage("alice", "bob", "hello")
	require.NoError(t, be.Deliver(waitCtx(t), m))
	require.NoError(t, be.Record(waitCtx(t), store.Event{Kind: store.EventOverdue, Agent: "alice", MessageID: m.ID}))
	ev.WaitFor(t, store.EventSent, func(e store.Event) bool { return e.MessageID == m.ID })
	ev.WaitFor(t, store.EventOverdue, func(e store.Event) bool { return e.MessageID == m.ID })
	require.NoError(t, be.Close())

	assert.Empty(t, readAudit(t, ts.openAudited(t, false, nil)))
	assert.Error(t, be.Record(waitCtx(t), store.Event{Kind: store.EventOverdue, Agent: "alice"}), "closed")
}

// TestAuditRecordNeedsAnAgent: an event without a valid agent is refused
// (its subject names the agent).
func TestAuditRecordNeedsAnAgent(t *testing.T) {
	ts := startServer(t, "")
	be := ts.openAudited(t, true, nil)
	assert.Error(t, be.Record(waitCtx(t), store.Event{Kind: store.EventDelivered}))
	assert.Error(t, be.Record(waitCtx(t), store.Event{Kind: store.EventDelivered, Agent: "../x"}))
}

// TestAuditLogFromMailboxConfig: the mailbox's auditLog key turns the
// audit log of a store opened as backend "nats" on (the default) or off.
func TestAuditLogFromMailboxConfig(t *testing.T) {
	ts := startServer(t, "")
	send := func(auditLog bool) string {
		cfg := mailbox.DefaultConfig()
		cfg.AgentID, cfg.Backend, cfg.AuditLog = "alice", natsstore.BackendName, auditLog
		cfg.NATS = map[string]any{"url": ts.url()}
		be, err := mailbox.OpenBackend(cfg, mailbox.BackendDeps{})
		require.NoError(t, err)
		m := storetest.NewMessage("alice", "bob", "hello")
		require.NoError(t, be.Deliver(waitCtx(t), m))
		require.NoError(t, be.Close())
		return m.ID
	}
	assert.True(t, mailbox.DefaultConfig().AuditLog)
	on, off := send(true), send(false)
	var ids []string
	for _, ev := range readAudit(t, ts.openAudited(t, false, nil)) {
		ids = append(ids, ev.MessageID)
	}
	assert.Equal(t, []string{on}, ids, "only the store with the audit log on wrote (not %s)", off)
}
