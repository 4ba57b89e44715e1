package natsstore_test

import (
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestOpenWithoutJetStream: a server without JetStream is named as such,
// not as "no responders".
func TestOpenWithoutJetStream(t *testing.T) {
	t.Parallel()
	srv := &natstest.Server{Opts: server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true}}
	require.NoError(t, srv.Launch())
	t.Cleanup(srv.Stop)
	nc, err := nats.Connect(srv.URL())
	require.NoError(t, err)
	_, err = natsstore.Open(testkit.Ctx(t), natsstore.Options{Conn: nc, OwnConn: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "JetStream is not enabled on the server at nats://127.0.0.1:")
	assert.True(t, nc.IsClosed(), "the store closes the connection it owns")
}
