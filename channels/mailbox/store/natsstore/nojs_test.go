package natsstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
)

// TestOpenWithoutJetStream: a server without JetStream is named as such,
// not as "no responders".
func TestOpenWithoutJetStream(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	require.True(t, srv.ReadyForConnections(20*time.Second))
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = natsstore.Open(ctx, natsstore.Options{Conn: nc, OwnConn: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "JetStream is not enabled on the server at nats://127.0.0.1:")
	assert.True(t, nc.IsClosed(), "the store closes the connection it owns")
}
