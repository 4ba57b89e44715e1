package natsstore_test

import (
	"log/slog"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestHistoryConfigKey: history is on by default; "history": false sets
// Options.NoHistory.
func TestHistoryConfigKey(t *testing.T) {
	def := natsstore.DefaultConfig()
	assert.True(t, def.History)
	assert.False(t, def.Options(nil).NoHistory)
	cfg, err := natsstore.DecodeConfig(map[string]any{"history": false})
	require.NoError(t, err)
	assert.False(t, cfg.History)
	assert.True(t, cfg.Options(nil).NoHistory)
}

// TestHistoryOff: a store opened with "history": false makes no history
// stream and no republish, delivers as before, reports its events to the
// Observer and writes no audit log (auditLog is on); Browse, ReadAudit
// and SweepTask fail with ErrNoHistory, naming the key.
func TestHistoryOff(t *testing.T) {
	ts := sharedServer(t)
	var log testkit.Buffer
	ev := testkit.NewEvents()
	cfg, err := natsstore.DecodeConfig(ts.section(map[string]any{"history": false}))
	require.NoError(t, err)
	opts := cfg.Options(ts.Connect(t))
	opts.AuditLog, opts.Observer = true, ev.Observe
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	be := openWith(t, opts)

	assert.NotContains(t, streamNames(t, ts), ts.ns.HistoryStream)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	main, err := js.Stream(testkit.Ctx(t), ts.ns.Stream)
	require.NoError(t, err)
	assert.Nil(t, main.CachedInfo().Config.RePublish)

	m := taskMessage("alice", "bob", "sort 2 1", "t-1")
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.Equal(t, m.ID, d.Message.ID)
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	require.NoError(t, be.Record(testkit.Ctx(t), driver.Event{Kind: driver.EventDelivered, Agent: "bob", MessageID: m.ID}))
	ev.WaitKind(t, driver.EventProcessed, func(e driver.Event) bool { return e.MessageID == m.ID })
	ev.WaitKind(t, driver.EventDelivered, func(e driver.Event) bool { return e.MessageID == m.ID })

	errs := map[string]error{
		"browse":    be.Browse(testkit.Ctx(t), func(driver.Stored) bool { return true }),
		"readAudit": be.ReadAudit(testkit.Ctx(t), func(driver.Event) bool { return true }),
	}
	_, errs["sweepTask"] = in.(driver.TaskSweeper).SweepTask(testkit.Ctx(t), "t-1")
	for what, err := range errs {
		require.ErrorIs(t, err, natsstore.ErrNoHistory, what)
		require.ErrorIs(t, err, driver.ErrTurnedOff, what)
		assert.Contains(t, err.Error(), "channels.mailbox.nats.history is false", what)
	}
	_, err = view.Thread(testkit.Ctx(t), store.New(be, nil), m.ID)
	assert.ErrorIs(t, err, natsstore.ErrNoHistory, "threads say why")
	require.NoError(t, in.Close())
	require.NoError(t, be.Close())
	assert.NotContains(t, log.String(), "level=WARN", "no history stream looked for, no audit entry sent")
}

// TestHistoryOffLeavesRePublish: a store opened with the history off on a
// main stream that republishes (made with the history on) leaves the
// republish as it is, and so the history stream goes on getting copies.
func TestHistoryOffLeavesRePublish(t *testing.T) {
	ts := sharedServer(t)
	ts.open(t, nil) // history on: makes both streams
	opts := ts.options(t, nil)
	opts.NoHistory = true
	be := openWith(t, opts)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	main, err := js.Stream(testkit.Ctx(t), ts.ns.Stream)
	require.NoError(t, err)
	require.NotNil(t, main.CachedInfo().Config.RePublish, "left as it was")

	m := storetest.NewMessage("alice", "bob", "copied all the same")
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	assert.Contains(t, browseAll(t, ts.open(t, nil)), m.ID, "found by a store with the history on")
}
