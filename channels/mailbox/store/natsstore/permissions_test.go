package natsstore_test

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

// TestPerAgentPermissions runs the server configuration of
// testdata/agents.conf (the one docs/backends.md shows): each agent works
// with its own user, may send only as itself and consume only its own
// inbox.
func TestPerAgentPermissions(t *testing.T) {
	opts, err := server.ProcessConfigFile("testdata/agents.conf")
	require.NoError(t, err)
	opts.Host, opts.Port, opts.StoreDir, opts.NoLog, opts.NoSigs = "127.0.0.1", -1, t.TempDir(), true, true
	srv, err := server.NewServer(opts)
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(20*time.Second))
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	url := "nats://127.0.0.1:" + itoa(srv.Addr().(*net.TCPAddr).Port)

	open := func(user, password string) *natsstore.Store {
		t.Helper()
		cfg, err := natsstore.DecodeConfig(map[string]any{"url": url, "user": user, "password": password,
			"inboxPrefix": "_INBOX_" + user, "connectTimeout": 5})
		require.NoError(t, err)
		nc, err := cfg.Connect(user)
		require.NoError(t, err)
		o := cfg.Options(nc)
		o.OwnConn = true
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
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
	require.NoError(t, researcher.Deliver(waitCtx(t), ask))
	_, err = coder.UpdateCard(waitCtx(t), "coder", func(c *envelope.Card) { c.Capabilities = []string{"sort"} })
	require.NoError(t, err, "own card")
	in, err := coder.OpenInbox(waitCtx(t), "coder")
	require.NoError(t, err, "own inbox")
	defer in.Close()
	d, err := in.Next(waitCtx(t))
	require.NoError(t, err)
	assert.Equal(t, ask.ID, d.Message.ID)
	require.NoError(t, in.Ack(waitCtx(t), d))
	require.NoError(t, coder.Deliver(waitCtx(t), storetest.NewMessage("coder", "researcher", "1 2 3")), "reply as itself")
	cards, err := coder.Cards(waitCtx(t))
	require.NoError(t, err, "read every card")
	assert.Len(t, cards, 1)
	require.NoError(t, coder.SaveState(waitCtx(t), "coder", "sent-tasks", []byte("[]")), "own state")

	// A denied request gets no answer: each of these fails on its deadline.
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	_, err = coder.OpenInbox(short(), "researcher")
	assert.Error(t, err, "another agent's inbox")
	assert.Error(t, coder.Deliver(short(), storetest.NewMessage("researcher", "coder", "spoofed")), "send as another agent")
	_, err = coder.UpdateCard(short(), "researcher", func(c *envelope.Card) { c.Description = "hijacked" })
	assert.Error(t, err, "another agent's card")
	assert.Error(t, coder.SaveState(short(), "researcher", "sent-tasks", []byte("[]")), "another agent's state")
}

func itoa(n int) string { return strconv.Itoa(n) }
