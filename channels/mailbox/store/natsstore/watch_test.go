package natsstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// watchedStore opens a store on srv for the watch tests, closed when the
// test ends.
func watchedStore(t *testing.T, srv *natstest.Server) *natsstore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	st, err := natsstore.Open(ctx, natsstore.Options{Conn: srv.Connect(t), OwnConn: true, MaxMessageBytes: 1 << 20})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// publishOn publishes data on subject with a connection of its own.
func publishOn(t *testing.T, srv *natstest.Server, subject string, data []byte) {
	t.Helper()
	nc := srv.Connect(t)
	require.NoError(t, nc.Publish(subject, data))
	require.NoError(t, nc.Flush())
}

// A message delivered after Watch is ready is reported once, retried
// publish or not, with its subject; what waited before is not reported,
// and nothing is claimed.
func TestWatchReportsNewMessagesOnce(t *testing.T) {
	srv := natstest.Start(t, "")
	st := watchedStore(t, srv)
	ctx := testkit.Ctx(t)
	before := storetest.NewMessage("alice", "bob", "before")
	require.NoError(t, st.Deliver(ctx, before))

	w := storetest.StartWatch(t, st, "")
	first := storetest.NewMessage("alice", "bob", "first")
	require.NoError(t, st.Deliver(ctx, first))
	require.NoError(t, st.Deliver(ctx, first), "a retried publish")
	second := storetest.NewMessage("carol", "dave", "second")
	require.NoError(t, st.Deliver(ctx, second))

	got := w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, first.ID, got.Message.ID)
	assert.Equal(t, "mailbox.bob.inbox.alice", got.Ref)
	got = w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, second.ID, got.Message.ID, "the retried publish is not reported again")
	assert.Equal(t, "mailbox.dave.inbox.carol", got.Ref)
	w.Stop(t)

	in, err := st.OpenInbox(ctx, "bob")
	require.NoError(t, err)
	defer in.Close()
	for _, want := range []string{before.ID, first.ID} {
		d, err := in.Next(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, d.Message.ID, "watch claimed nothing")
		require.NoError(t, in.Ack(ctx, d))
	}
}

// Watching one agent reports that agent's messages only, readable or not.
func TestWatchOneAgent(t *testing.T) {
	srv := natstest.Start(t, "")
	st := watchedStore(t, srv)
	ctx := testkit.Ctx(t)
	w := storetest.StartWatch(t, st, "bob")

	require.NoError(t, st.Deliver(ctx, storetest.NewMessage("alice", "carol", "not for bob")))
	publishOn(t, srv, "mailbox.carol.inbox.mallory", []byte("{"))
	publishOn(t, srv, "mailbox.bob.inbox.mallory", []byte("{"))
	forBob := storetest.NewMessage("alice", "bob", "for bob")
	require.NoError(t, st.Deliver(ctx, forBob))

	got := w.Next(t)
	assert.Equal(t, "mailbox.bob.inbox.mallory", got.Ref)
	assert.Nil(t, got.Message)
	assert.Error(t, got.Err, "why it cannot be read")
	got = w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, forBob.ID, got.Message.ID)
	assert.Zero(t, w.Notices.Count(nil))
}

// Opened with WatchOnly, the store watches a server where the mailbox's
// stream does not exist, creates none, applies the size cap, and refuses
// everything but watching.
func TestWatchOnlyStore(t *testing.T) {
	srv := natstest.Start(t, "")
	be, err := store.Open(natsstore.BackendName, driver.Config{AgentID: "watcher", WatchOnly: true, NoCreate: true,
		MaxMessageBytes: 512, Section: config.Section{Path: natsstore.ConfigPath, Raw: map[string]any{"url": srv.URL()}}})
	require.NoError(t, err)
	t.Cleanup(func() { be.Close() }) // after the watch stops
	watcher, ok := be, be.Has(store.CanWatch)
	require.True(t, ok, "a watch-only store can watch")
	w := storetest.StartWatch(t, watcher, "")

	msg := storetest.NewMessage("alice", "bob", "hello")
	data, err := envelope.Encode(msg)
	require.NoError(t, err)
	publishOn(t, srv, "mailbox.bob.inbox.alice", data)
	publishOn(t, srv, "mailbox.bob.priority.alice", []byte(`{"pad": "`+strings.Repeat("x", 600)+`"}`))

	got := w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, msg.ID, got.Message.ID)
	got = w.Next(t)
	assert.Equal(t, "mailbox.bob.priority.alice", got.Ref)
	assert.ErrorContains(t, got.Err, "message too large")

	_, err = be.Cards(testkit.Ctx(t))
	assert.ErrorContains(t, err, "watching only")
	assert.ErrorContains(t, be.Deliver(testkit.Ctx(t), msg), "watching only")

	js, err := jetstream.New(srv.Connect(t))
	require.NoError(t, err)
	names := js.StreamNames(testkit.Ctx(t))
	for range names.Name() {
		t.Error("a stream was created")
	}
}

// When the server goes away and comes back, Watch says so through Notice
// and goes on: what is delivered afterwards is reported.
func TestWatchServerRestarted(t *testing.T) {
	srv := natstest.Start(t, "")
	st := watchedStore(t, srv)
	w := storetest.StartWatch(t, st, "")

	srv.Restart(t)
	lost := w.Notices.WaitFor(t, "notice of the lost connection", func(s string) bool {
		return strings.HasPrefix(s, "lost the connection to NATS at "+srv.URL())
	})
	assert.Contains(t, lost, "messages published meanwhile are not shown")
	w.Notices.WaitFor(t, "notice of the reconnection", func(s string) bool {
		return s == "connected to NATS at "+srv.URL()+" again; watching goes on"
	})

	after := storetest.NewMessage("alice", "bob", "after the restart")
	require.NoError(t, st.Deliver(testkit.Ctx(t), after))
	got := w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, after.ID, got.Message.ID)
}

// Credentials that may not subscribe to every inbox make Watch fail at
// once, saying what it needs.
func TestWatchNeedsPermission(t *testing.T) {
	srv := &natstest.Server{Opts: natstest.DefaultOptions(t.TempDir())}
	srv.Opts.JetStream = false
	srv.Opts.Users = []*server.User{{Username: "coder", Password: "secret", Permissions: &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: []string{">"}},
		Subscribe: &server.SubjectPermission{Allow: []string{"mailbox.coder.>", "_INBOX.>"}},
	}}}
	require.NoError(t, srv.Launch())
	t.Cleanup(srv.Stop)
	be, err := store.Open(natsstore.BackendName, driver.Config{AgentID: "coder", WatchOnly: true,
		Section: config.Section{Path: natsstore.ConfigPath, Raw: map[string]any{"url": srv.URL(), "user": "coder", "password": "secret"}}})
	require.NoError(t, err)
	defer be.Close()

	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	err = be.Watch(ctx, "", driver.WatchFuncs{Ready: func() { t.Error("ready without permission") }})
	require.ErrorIs(t, err, nats.ErrPermissionViolation)
	assert.Contains(t, err.Error(), "watching needs permission to subscribe to mailbox.*.inbox.* and mailbox.*.priority.*")
}

// Watch refuses an agent id that is not valid, and ends with an error
// when the store's connection is closed for good.
func TestWatchRefusesAndEnds(t *testing.T) {
	srv := natstest.Start(t, "")
	st := watchedStore(t, srv)
	require.ErrorIs(t, st.Watch(testkit.Ctx(t), "a/b", driver.WatchFuncs{}), envelope.ErrBadAgentID)

	nc := srv.Connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	bare, err := natsstore.Open(ctx, natsstore.Options{Conn: nc})
	require.NoError(t, err)
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() { done <- bare.Watch(ctx, "", driver.WatchFuncs{Ready: func() { close(ready) }}) }()
	<-ready
	nc.Close()
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "was closed")
	case <-time.After(testkit.WaitLimit):
		t.Fatal("Watch did not end with its connection")
	}
}
