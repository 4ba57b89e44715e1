package natsstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestPerAgentPermissions runs the server configuration of
// testdata/agents.conf (the one docs/backends.md shows): each agent works
// with its own user, may send only as itself (priority messages too) and
// consume only its own inbox's two consumers.
func TestPerAgentPermissions(t *testing.T) {
	t.Parallel()
	url := startAgentsServer(t)
	connect := func(user, password string) (*nats.Conn, natsstore.Config) {
		t.Helper()
		return connectAs(t, url, user, password)
	}
	open := func(user, password string) *natsstore.Store {
		t.Helper()
		nc, cfg := connect(user, password)
		o := cfg.Options(nc)
		o.OwnConn = true
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancel()
		s, err := natsstore.Open(ctx, o)
		require.NoError(t, err, "open as %s", user)
		t.Cleanup(func() { s.Close() })
		return s
	}
	open("admin", "admin-secret") // creates the stream and the buckets
	coder := open("coder", "coder-secret")
	researcher := open("researcher", "researcher-secret")

	ask := storetest.NewMessage("researcher", "coder", "sort 3 1 2")
	require.NoError(t, researcher.Deliver(testkit.Ctx(t), ask))
	urgent := storetest.NewMessage("researcher", "coder", "stop")
	urgent.Priority = 2
	require.NoError(t, researcher.Deliver(testkit.Ctx(t), urgent), "a priority message as itself")
	_, err := coder.UpdateCard(testkit.Ctx(t), "coder", func(c *envelope.Card) { c.Capabilities = []string{"sort"} })
	require.NoError(t, err, "own card")
	now := time.Now()
	turn, err := coder.TakeTurn(testkit.Ctx(t), "mark-stale", now, time.Minute)
	require.NoError(t, err, "a shared duty")
	assert.True(t, turn)
	turn, err = researcher.TakeTurn(testkit.Ctx(t), "mark-stale", now, time.Minute)
	require.NoError(t, err, "a shared duty")
	assert.False(t, turn, "coder's turn")
	in, err := coder.OpenInbox(testkit.Ctx(t), "coder")
	require.NoError(t, err, "own inbox")
	defer in.Close()
	for _, want := range []string{urgent.ID, ask.ID} { // both consumers of its own inbox
		d, err := in.Next(testkit.Ctx(t))
		require.NoError(t, err)
		assert.Equal(t, want, d.Message.ID)
		require.NoError(t, in.Ack(testkit.Ctx(t), d))
	}
	require.NoError(t, coder.Deliver(testkit.Ctx(t), storetest.NewMessage("coder", "researcher", "1 2 3")), "reply as itself")
	cards, err := coder.Cards(testkit.Ctx(t))
	require.NoError(t, err, "read every card")
	assert.Len(t, cards, 1)
	require.NoError(t, store.New(coder, nil).SaveState(testkit.Ctx(t), "coder", "sent-tasks", []byte("[]")), "own state")

	// A denied request gets no answer: each of these fails on its deadline.
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	_, err = coder.OpenInbox(short(), "researcher")
	assert.Error(t, err, "another agent's inbox")
	assert.Error(t, coder.Deliver(short(), storetest.NewMessage("researcher", "coder", "spoofed")), "send as another agent")
	spoofed := storetest.NewMessage("researcher", "coder", "spoofed")
	spoofed.Priority = 3
	assert.Error(t, coder.Deliver(short(), spoofed), "send a priority message as another agent")
	_, err = coder.UpdateCard(short(), "researcher", func(c *envelope.Card) { c.Description = "hijacked" })
	assert.Error(t, err, "another agent's card")
	assert.Error(t, store.New(coder, nil).SaveState(short(), "researcher", "sent-tasks", []byte("[]")), "another agent's state")

	// researcher's priority consumer exists and holds a message for it;
	// coder's user cannot pull it, researcher's own inbox gets it.
	rin, err := researcher.OpenInbox(testkit.Ctx(t), "researcher")
	require.NoError(t, err)
	require.NoError(t, rin.Close())
	note := storetest.NewMessage("coder", "researcher", "look at this first")
	note.Priority = 1
	require.NoError(t, coder.Deliver(testkit.Ctx(t), note))
	spy, _ := connect("coder", "coder-secret")
	defer spy.Close()
	_, err = spy.RequestWithContext(short(), "$JS.API.CONSUMER.MSG.NEXT.MAILBOX.prio-researcher", []byte(`{"batch":1}`))
	assert.Error(t, err, "pull from another agent's priority consumer")
	rin, err = researcher.OpenInbox(testkit.Ctx(t), "researcher")
	require.NoError(t, err)
	defer rin.Close()
	d, err := rin.Next(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, note.ID, d.Message.ID)
	require.NoError(t, rin.Ack(testkit.Ctx(t), d))
}

// startAgentsServer starts a server of the test's own with
// testdata/agents.conf (its users and permissions name the default
// stream, subjects and buckets) and returns its URL.
func startAgentsServer(t *testing.T) string {
	t.Helper()
	opts, err := server.ProcessConfigFile("testdata/agents.conf")
	require.NoError(t, err)
	opts.Host, opts.Port, opts.StoreDir, opts.NoLog, opts.NoSigs = "127.0.0.1", -1, t.TempDir(), true, true
	srv := &natstest.Server{Opts: *opts}
	require.NoError(t, srv.Launch())
	t.Cleanup(srv.Stop)
	return srv.URL()
}

// connectAs connects to url as user, with the config an agent of that
// name would have.
func connectAs(t *testing.T, url, user, password string) (*nats.Conn, natsstore.Config) {
	t.Helper()
	cfg, err := natsstore.DecodeConfig(map[string]any{"url": url, "user": user, "password": password,
		"inboxPrefix": "_INBOX_" + user, "connectTimeout": 5})
	require.NoError(t, err)
	nc, err := cfg.Connect(user)
	require.NoError(t, err)
	return nc, cfg
}
