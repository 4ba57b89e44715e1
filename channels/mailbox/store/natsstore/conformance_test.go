package natsstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

// TestConformance runs the backend conformance suite on JetStream: each
// test gets its own embedded server, and every Open is a Store on its own
// connection, as separate processes would have.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) *storetest.Harness {
		ts := startServer(t, "")
		return &storetest.Harness{
			Open: func(t *testing.T, obs store.Observer) store.Backend { return ts.openAudited(t, true, obs) },
			InjectRaw: func(t *testing.T, agent, from string, data []byte) {
				publishRaw(t, ts, "mailbox."+agent+".inbox."+from, data)
			},
		}
	}, storetest.Features{MaxDeliver: 3, NoPrune: true, ReadAhead: true})
}

// publishRaw publishes data on subject as it is, through a connection of
// its own, and waits for the stream to store it.
func publishRaw(t *testing.T, ts *testServer, subject string, data []byte) {
	t.Helper()
	js, err := jetstream.New(ts.connect(t))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = js.Publish(ctx, subject, data)
	require.NoError(t, err)
}
