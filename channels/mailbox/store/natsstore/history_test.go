package natsstore_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// browseAll returns what Browse finds, by message id.
func browseAll(t *testing.T, b driver.Browser) map[string]driver.Stored {
	t.Helper()
	got := map[string]driver.Stored{}
	require.NoError(t, b.Browse(testkit.Ctx(t), func(s driver.Stored) bool {
		_, dup := got[s.Message.ID]
		assert.False(t, dup, "message %s found twice", s.Message.ID)
		got[s.Message.ID] = s
		return true
	}))
	return got
}

// taskMessage is a message of task id.
func taskMessage(from, to, text, id string) *envelope.Message {
	m := storetest.NewMessage(from, to, text)
	m.Type, m.Task = envelope.TypeTask, &envelope.Task{ID: id, State: envelope.StatePending}
	return m
}

// TestBrowseFollowsAMessagesLife: a message is found in the inbox before
// anyone reads it, claimed while handed out, processed once acknowledged
// and in the archive once its task is swept; a message set aside is not
// found; the message of an agent that never opened its inbox stays in the
// inbox.
func TestBrowseFollowsAMessagesLife(t *testing.T) {
	ts := sharedServer(t)
	ev := testkit.NewEvents()
	be := ts.open(t, ev.Observe)
	first := taskMessage("alice", "bob", "sort 3 1 2", "task-1")
	waiting := storetest.NewMessage("alice", "carol", "for later")
	require.NoError(t, be.Deliver(testkit.Ctx(t), first))
	require.NoError(t, be.Deliver(testkit.Ctx(t), waiting))

	got := browseAll(t, be)
	require.Len(t, got, 2)
	assert.Equal(t, driver.BoxInbox, got[first.ID].Box)
	assert.Equal(t, "bob", got[first.ID].Agent)
	assert.Equal(t, first.Text(), got[first.ID].Message.Text())
	assert.Regexp(t, `^#\d+$`, got[first.ID].Ref)
	assert.Equal(t, driver.BoxInbox, got[waiting.ID].Box)

	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, driver.BoxClaimed, browseAll(t, be)[first.ID].Box)
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	assert.Equal(t, driver.BoxProcessed, browseAll(t, be)[first.ID].Box)

	update := taskMessage("alice", "bob", "more", "task-1")
	poison := storetest.NewMessage("alice", "bob", "refused")
	require.NoError(t, be.Deliver(testkit.Ctx(t), update))
	require.NoError(t, be.Deliver(testkit.Ctx(t), poison))
	got = browseAll(t, be)
	assert.Contains(t, []driver.Box{driver.BoxInbox, driver.BoxClaimed}, got[update.ID].Box, "pending (maybe pulled ahead)")
	d, err = in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.Equal(t, update.ID, d.Message.ID)
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	d, err = in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.Equal(t, poison.ID, d.Message.ID)
	require.NoError(t, in.Quarantine(testkit.Ctx(t), d, "not allowed"))

	got = browseAll(t, be)
	assert.NotContains(t, got, poison.ID, "a message set aside is left out")
	assert.Equal(t, driver.BoxProcessed, got[update.ID].Box)

	sw, ok := in.(driver.TaskSweeper)
	require.True(t, ok)
	n, err := sw.SweepTask(testkit.Ctx(t), "task-1")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	got = browseAll(t, be)
	assert.Equal(t, driver.BoxArchive, got[first.ID].Box)
	assert.Equal(t, driver.BoxArchive, got[update.ID].Box)
	assert.Equal(t, driver.BoxInbox, got[waiting.ID].Box)
	swept := ev.WaitKind(t, driver.EventSwept, func(e driver.Event) bool { return e.MessageID == update.ID })
	assert.Equal(t, "task-1", swept.TaskID)
	assert.Equal(t, got[update.ID].Ref, swept.Ref)

	n, err = sw.SweepTask(testkit.Ctx(t), "task-1")
	require.NoError(t, err)
	assert.Zero(t, n, "swept already")
}

// TestBrowseEmptyStore: a store without messages has nothing to browse.
func TestBrowseEmptyStore(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	assert.Empty(t, browseAll(t, be))
}

// TestHistorySurvivesRestart: handled messages are found after the server
// restarts, in the box they were in.
func TestHistorySurvivesRestart(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "")
	be := ts.open(t, nil)
	done, open := storetest.NewMessage("alice", "bob", "done"), storetest.NewMessage("alice", "bob", "open")
	require.NoError(t, be.Deliver(testkit.Ctx(t), done))
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
	require.NoError(t, in.Close())
	require.NoError(t, be.Deliver(testkit.Ctx(t), open))
	// The history's copies are republished by the server moments after
	// the main stream stores a message; one on its way when the server
	// stops is lost (see Browse). What must survive is what the history
	// holds, so the test restarts once Browse has found both.
	require.Len(t, browseAll(t, be), 2, "both copies stored before the restart")
	require.NoError(t, be.Close())

	ts.Restart(t)
	got := browseAll(t, ts.open(t, nil))
	require.Len(t, got, 2)
	assert.Equal(t, driver.BoxProcessed, got[done.ID].Box)
	assert.Equal(t, driver.BoxInbox, got[open.ID].Box)
}

// TestOlderStreamGetsRePublish: a main stream created without the
// republish (by an older version) is given it when a store opens, and the
// messages stored from then on are found.
func TestOlderStreamGetsRePublish(t *testing.T) {
	ts := sharedServer(t)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	_, err = js.CreateStream(testkit.Ctx(t), jetstream.StreamConfig{Name: ts.ns.Stream,
		Subjects:  []string{ts.subject("*.inbox.*"), ts.subject("*.priority.*"), ts.subject("*.dead")},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage})
	require.NoError(t, err)

	be := ts.open(t, nil)
	info, err := js.Stream(testkit.Ctx(t), ts.ns.Stream)
	require.NoError(t, err)
	require.NotNil(t, info.CachedInfo().Config.RePublish)
	assert.Equal(t, ts.subject("*.*.*"), info.CachedInfo().Config.RePublish.Source)
	m := storetest.NewMessage("alice", "bob", "after the upgrade")
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	assert.Contains(t, browseAll(t, be), m.ID)
}

// TestHistoryLimits: the history stream is made with the configured
// bounds; 0 and -1 set none.
func TestHistoryLimits(t *testing.T) {
	ts := sharedServer(t)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	limits := func(stream string) jetstream.StreamConfig {
		s, err := js.Stream(testkit.Ctx(t), stream)
		require.NoError(t, err)
		return s.CachedInfo().Config
	}
	ts.open(t, nil)
	def := limits(ts.ns.HistoryStream)
	assert.Equal(t, 30*24*time.Hour, def.MaxAge)
	assert.Equal(t, int64(1<<30), def.MaxBytes)
	assert.Equal(t, jetstream.LimitsPolicy, def.Retention)

	other := natstest.NewNamespace()
	raw := other.Section(ts.Server)
	raw["historyMaxAge"], raw["historyMaxBytes"] = 0, -1
	cfg, err := natsstore.DecodeConfig(raw)
	require.NoError(t, err)
	opts := cfg.Options(ts.Connect(t))
	openWith(t, opts)
	none := limits(other.HistoryStream)
	assert.Zero(t, none.MaxAge)
	assert.Equal(t, int64(-1), none.MaxBytes)
	p := other.SubjectPrefix
	assert.Equal(t, []string{p + ".*.history.*", p + ".*.audit", p + ".*.swept"}, none.Subjects)
}

// TestHistorySharedByTwoPrefixes: a store of another subject prefix and
// stream on the same server adds its subjects to the history stream, and
// each store browses its own messages only.
func TestHistorySharedByTwoPrefixes(t *testing.T) {
	ts := sharedServer(t)
	first := ts.open(t, nil)
	opts := ts.options(t, nil)
	team := natstest.NewNamespace()
	team.HistoryStream = ts.ns.HistoryStream
	team.Apply(&opts)
	second := openWith(t, opts)
	a, b := storetest.NewMessage("alice", "bob", "first"), storetest.NewMessage("alice", "bob", "second")
	require.NoError(t, first.Deliver(testkit.Ctx(t), a))
	require.NoError(t, second.Deliver(testkit.Ctx(t), b))
	assert.Equal(t, []string{a.ID}, keys(browseAll(t, first)))
	assert.Equal(t, []string{b.ID}, keys(browseAll(t, second)))
}

func keys(m map[string]driver.Stored) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
