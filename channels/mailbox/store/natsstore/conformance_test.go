package natsstore_test

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestConformance runs the backend conformance suite on JetStream: one
// server for the test binary, a namespace of its own for each test, and
// every Open a Store on its own connection, as separate processes would
// have.
func TestConformance(t *testing.T) {
	t.Parallel()
	srv := natstest.Shared(t)
	storetest.Run(t, func(t *testing.T) *storetest.Harness {
		ts := &testServer{Server: srv, ns: natstest.NewNamespace()}
		return &storetest.Harness{
			Open: func(t *testing.T, obs driver.Observer) driver.Backend { return ts.openAudited(t, true, obs) },
			InjectRaw: func(t *testing.T, agent, from string, data []byte) {
				publishRaw(t, ts, ts.subject(agent+".inbox."+from), data)
			},
			CorruptArtifact: func(t *testing.T, digest string, data []byte) {
				js, err := jetstream.New(ts.Connect(t))
				require.NoError(t, err)
				obs, err := js.ObjectStore(testkit.Ctx(t), ts.ns.ArtifactsBucket)
				require.NoError(t, err)
				_, err = obs.PutBytes(testkit.Ctx(t), digest, data)
				require.NoError(t, err)
			},
			Crash: func(t *testing.T, in driver.Inbox) { require.NoError(t, natsstore.Crash(in)) },
		}
	}, storetest.Features{MaxDeliver: 3, NoPrune: true, ReadAhead: true})
}

// publishRaw publishes data on subject as it is, through a connection of
// its own, and waits for the stream to store it.
func publishRaw(t *testing.T, ts *testServer, subject string, data []byte) {
	t.Helper()
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	_, err = js.Publish(testkit.Ctx(t), subject, data)
	require.NoError(t, err)
}
