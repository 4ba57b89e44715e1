package natsstore_test

import (
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// openAudited opens a store on its own connection with the audit log on
// or off.
func (ts *testServer) openAudited(t *testing.T, on bool, obs driver.Observer) *natsstore.Store {
	t.Helper()
	opts := ts.options(t, obs)
	opts.AuditLog = on
	return openWith(t, opts)
}

// readAudit returns the audit log.
func readAudit(t *testing.T, r driver.AuditReader) []driver.Event {
	t.Helper()
	var got []driver.Event
	require.NoError(t, r.ReadAudit(testkit.Ctx(t), func(ev driver.Event) bool { got = append(got, ev); return true }))
	return got
}

// TestAuditLogFromTwoStores: the events of a sender's store and of the
// receiver's store (its own and the one the channel records) are read
// back from a third store, in the order they happened: sent (the
// history's copy of the message, stamped when the stream stored it),
// then the receiver's batch. Close stores what is buffered.
func TestAuditLogFromTwoStores(t *testing.T) {
	ts := sharedServer(t)
	sender, receiver := ts.openAudited(t, true, nil), ts.openAudited(t, true, nil)
	m := storetest.NewMessage("alice", "bob", "hello")
	m.ThreadID, m.TaskID = "th-9", "task-9"
	before := time.Now()
	require.NoError(t, sender.Deliver(testkit.Ctx(t), m))
	require.NoError(t, sender.Close())

	in, err := receiver.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.NoError(t, receiver.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventDelivered, Agent: "bob",
		MessageID: m.ID, From: m.From, ThreadID: m.ThreadID}))
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	require.NoError(t, in.Close())
	require.NoError(t, receiver.Close())

	got := readAudit(t, ts.openAudited(t, false, nil))
	var kinds []driver.EventKind
	for _, ev := range got {
		kinds = append(kinds, ev.Kind)
		assert.Equal(t, m.ID, ev.MessageID)
		assert.Equal(t, "bob", ev.Agent)
		assert.Equal(t, "alice", ev.From)
		assert.False(t, ev.Time.IsZero())
	}
	require.Equal(t, []driver.EventKind{driver.EventSent, driver.EventClaimed, driver.EventDelivered, driver.EventProcessed}, kinds)
	sent := got[0]
	assert.Equal(t, "th-9", sent.ThreadID)
	assert.Equal(t, "task-9", sent.TaskID)
	assert.Regexp(t, `^#\d+$`, sent.Ref)
	assert.Equal(t, got[1].Ref, sent.Ref, "the claim names the same stream sequence")
	assert.WithinRange(t, sent.Time, before.Add(-time.Second), time.Now(), "when the stream stored it")
	assert.Equal(t, "th-9", got[2].ThreadID, "recorded as given")
}

// TestAuditLogOff: with AuditLog off, Record and the store's own events
// still reach the Observer and the store writes nothing; the log shows
// the message as sent all the same (the history's copy of it).
func TestAuditLogOff(t *testing.T) {
	ts := sharedServer(t)
	ev := testkit.NewEvents()
	be := ts.openAudited(t, false, ev.Observe)
	m := storetest.NewMessage("alice", "bob", "hello")
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	require.NoError(t, be.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventOverdue, Agent: "alice", MessageID: m.ID}))
	ev.WaitKind(t, driver.EventSent, func(e driver.Event) bool { return e.MessageID == m.ID })
	ev.WaitKind(t, driver.EventOverdue, func(e driver.Event) bool { return e.MessageID == m.ID })
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	ev.WaitKind(t, driver.EventProcessed, func(e driver.Event) bool { return e.MessageID == m.ID })
	require.NoError(t, be.Close())

	var kinds []driver.EventKind
	for _, e := range readAudit(t, ts.openAudited(t, false, nil)) {
		kinds = append(kinds, e.Kind)
	}
	assert.Equal(t, []driver.EventKind{driver.EventSent}, kinds)
	assert.Error(t, be.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventOverdue, Agent: "alice"}), "closed")
}

// TestAuditReadOwnWrites: a store reads back what it recorded a moment
// ago, without waiting for the batch to go out; another store finds it
// within the batch delay.
func TestAuditReadOwnWrites(t *testing.T) {
	ts := sharedServer(t)
	be, other := ts.openAudited(t, true, nil), ts.openAudited(t, false, nil)
	ev := driver.Event{Kind: driver.EventOverdue, Agent: "alice", MessageID: "m-1", From: "bob"}
	require.NoError(t, be.Record(testkit.Ctx(t), ev))
	got := readAudit(t, be)
	require.Len(t, got, 1)
	assert.Equal(t, "m-1", got[0].MessageID)
	waitForAudit(t, other, func(log []driver.Event) bool { return len(log) == 1 })
}

// TestAuditBatches: the entries of one store go out as batches of JSON
// lines, far fewer stored messages than entries, and read back one by
// one in the order they were written.
func TestAuditBatches(t *testing.T) {
	ts := sharedServer(t)
	be := ts.openAudited(t, true, nil)
	const n = 640
	for i := range n {
		require.NoError(t, be.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventDelivered, Agent: "bob",
			MessageID: strconv.Itoa(i)}))
	}
	require.NoError(t, be.Close())
	got := readAudit(t, ts.openAudited(t, false, nil))
	require.Len(t, got, n)
	for i, ev := range got {
		assert.Equal(t, strconv.Itoa(i), ev.MessageID)
	}
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	hist, err := js.Stream(testkit.Ctx(t), ts.ns.HistoryStream)
	require.NoError(t, err)
	info, err := hist.Info(testkit.Ctx(t), jetstream.WithSubjectFilter(ts.subject("bob.audit")))
	require.NoError(t, err)
	stored := info.State.Subjects[ts.subject("bob.audit")]
	assert.Positive(t, stored)
	assert.Less(t, stored, uint64(n), "entries stored in batches")
}

// TestAuditWithoutHistoryStream: when the history stream is gone, the
// batches cannot be stored: that is logged once, and messages go on as
// before; Close does not hang.
func TestAuditWithoutHistoryStream(t *testing.T) {
	ts := sharedServer(t)
	var log testkit.Buffer
	opts := ts.options(t, nil)
	opts.AuditLog, opts.Logger = true, slog.New(slog.NewTextHandler(&log, nil))
	be := openWith(t, opts)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	require.NoError(t, js.DeleteStream(testkit.Ctx(t), ts.ns.HistoryStream))

	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	for range 2 {
		m := storetest.NewMessage("alice", "bob", "still delivered")
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
		d, err := in.Next(testkit.Ctx(t))
		require.NoError(t, err)
		assert.Equal(t, m.ID, d.Message.ID)
		require.NoError(t, in.Ack(testkit.Ctx(t), d))
		require.NoError(t, be.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventDelivered, Agent: "bob", MessageID: m.ID}))
		_ = be.ReadAudit(testkit.Ctx(t), func(driver.Event) bool { return true }) // sends this store's batch
	}
	require.NoError(t, in.Close())
	require.NoError(t, be.Close())
	assert.Equal(t, 1, strings.Count(log.String(), "audit log entries not stored"), "said once: %s", log.String())
}

// waitForAudit reads the audit log of r until done accepts it, within
// the suite's wait limit.
func waitForAudit(t *testing.T, r driver.AuditReader, done func([]driver.Event) bool) []driver.Event {
	t.Helper()
	deadline := time.Now().Add(testkit.WaitLimit)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		got := readAudit(t, r)
		if done(got) || time.Now().After(deadline) {
			return got
		}
		<-tick.C
	}
}

// TestAuditRecordNeedsAnAgent: an event without a valid agent is refused
// (its subject names the agent).
func TestAuditRecordNeedsAnAgent(t *testing.T) {
	ts := sharedServer(t)
	be := ts.openAudited(t, true, nil)
	assert.Error(t, be.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventDelivered}))
	assert.Error(t, be.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventDelivered, Agent: "../x"}))
}

// TestAuditLogFromMailboxConfig: the mailbox's auditLog key (driver.Config)
// turns the audit log of a store opened as backend "nats" on or off;
// both stores' messages are in it as sent (the history's copies).
func TestAuditLogFromMailboxConfig(t *testing.T) {
	ts := sharedServer(t)
	send := func(auditLog bool) string {
		be, err := store.Open(natsstore.BackendName, driver.Config{AgentID: "alice", AuditLog: auditLog,
			Section: config.Section{Path: natsstore.ConfigPath, Raw: ts.section(nil)}})
		require.NoError(t, err)
		m := storetest.NewMessage("alice", "bob", "hello")
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
		require.NoError(t, be.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventOverdue,
			Agent: "bob", From: "alice", MessageID: m.ID}))
		require.NoError(t, be.Close())
		return m.ID
	}
	on, off := send(true), send(false)
	var entries []string
	for _, ev := range readAudit(t, ts.openAudited(t, false, nil)) {
		entries = append(entries, string(ev.Kind)+" "+ev.MessageID)
	}
	assert.Equal(t, []string{"sent " + on, "overdue " + on, "sent " + off}, entries,
		"only the store with the audit log on recorded")
}
