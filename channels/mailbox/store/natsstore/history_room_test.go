package natsstore_test

import (
	"log/slog"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// openWithRoom starts a server of the test's own whose JetStream file
// storage is limited to room bytes, as on a disk nearly full (the server
// takes three quarters of the free space by default) or with
// max_file_store set, and opens a store on it logging to the returned
// buffer.
func openWithRoom(t *testing.T, room int64) (*testServer, *natsstore.Store, *testkit.Buffer) {
	t.Helper()
	srv := &natstest.Server{Opts: natstest.DefaultOptions(t.TempDir())}
	srv.Opts.JetStreamMaxStore = room
	require.NoError(t, srv.Launch())
	t.Cleanup(srv.Stop)
	ts := &testServer{Server: srv, ns: defaultNames()}
	var log testkit.Buffer
	opts := ts.options(t, nil)
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	return ts, openWith(t, opts), &log
}

// TestHistoryFitsTheServersRoom: a server with room for less than
// historyMaxBytes (300 MiB against the default 1 GiB) refuses a history
// stream reserving that bound; the store makes it at the largest halving
// that fits (256 MiB), warns naming both, and the history reads back.
func TestHistoryFitsTheServersRoom(t *testing.T) {
	t.Parallel()
	ts, be, log := openWithRoom(t, 300<<20)

	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	hist, err := js.Stream(testkit.Ctx(t), ts.ns.HistoryStream)
	require.NoError(t, err, "the history stream is made")
	assert.Equal(t, int64(256<<20), hist.CachedInfo().Config.MaxBytes)
	assert.Contains(t, log.String(), "level=WARN msg=\"history stream made smaller than historyMaxBytes")
	assert.Contains(t, log.String(), "historyMaxBytes=1073741824 refused=536870912 made=268435456")

	m := storetest.NewMessage("alice", "bob", "kept in a smaller history")
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	assert.Contains(t, browseAll(t, be), m.ID)
}

// TestHistoryWithoutRoom: a server with room for less than the smallest
// history (1 MiB) gets none; the store warns and delivers all the same,
// and reading the audit log says the stream does not exist.
func TestHistoryWithoutRoom(t *testing.T) {
	t.Parallel()
	ts, be, log := openWithRoom(t, 512<<10)

	assert.NotContains(t, streamNames(t, ts), ts.ns.HistoryStream)
	assert.Contains(t, log.String(), "history stream unavailable")
	assert.Contains(t, log.String(), "insufficient storage resources available")
	m := storetest.NewMessage("alice", "bob", "delivered without a history")
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	id, _ := nextID(t, in, true)
	assert.Equal(t, m.ID, id)

	err = be.ReadAudit(testkit.Ctx(t), func(driver.Event) bool { return true })
	require.ErrorIs(t, err, jetstream.ErrStreamNotFound)
	assert.Contains(t, err.Error(), "read the history: stream MAILBOX_HISTORY does not exist; the first agent")
}
