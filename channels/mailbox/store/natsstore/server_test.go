package natsstore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestMain(m *testing.M) { natstest.Main(m) }

// testServer is the server a test uses and the names of its mailbox on
// it: the defaults on a server of its own, a namespace of its own on the
// shared one.
type testServer struct {
	*natstest.Server
	ns natstest.Namespace
}

// defaultNames are the names of a store opened with the defaults.
func defaultNames() natstest.Namespace {
	d := natsstore.DefaultConfig()
	return natstest.Namespace{Stream: d.Stream, HistoryStream: d.HistoryStream, SubjectPrefix: d.SubjectPrefix,
		RegistryBucket: d.RegistryBucket, PresenceBucket: d.PresenceBucket, StateBucket: d.StateBucket,
		LockBucket: d.LockBucket, ArtifactsBucket: d.ArtifactsBucket}
}

// startServer starts a server of the test's own, storing in dir (a fresh
// temporary folder when empty), for a test that restarts it, looks at the
// whole server or opens stores with the default names.
func startServer(t testing.TB, dir string) *testServer {
	t.Helper()
	return &testServer{Server: natstest.Start(t, dir), ns: defaultNames()}
}

// sharedServer runs t in parallel with the package's other such tests on
// the shared server, in a namespace of its own.
func sharedServer(t *testing.T) *testServer {
	t.Helper()
	t.Parallel()
	return &testServer{Server: natstest.Shared(t), ns: natstest.NewNamespace()}
}

// subject is the subject rest (as "bob.inbox.alice") under the test's
// prefix.
func (ts *testServer) subject(rest string) string { return ts.ns.SubjectPrefix + "." + rest }

// section is the channels.mailbox.nats section of the test's mailbox,
// with extra keys.
func (ts *testServer) section(extra map[string]any) map[string]any {
	raw := ts.ns.Section(ts.Server)
	for k, v := range extra {
		raw[k] = v
	}
	return raw
}

// options are the store options of these tests, on a new connection to
// ts in the test's names: short lock TTL and MaxDeliver 3.
func (ts *testServer) options(t testing.TB, obs driver.Observer) natsstore.Options {
	t.Helper()
	opts := natsstore.Options{Conn: ts.Connect(t), OwnConn: true, Observer: obs, MaxDeliver: 3,
		AckWait: 10 * time.Second, LockTTL: 5 * time.Second, MaxMessageBytes: 1 << 20}
	ts.ns.Apply(&opts)
	return opts
}

// open opens a store on its own connection to ts.
func (ts *testServer) open(t testing.TB, obs driver.Observer) *natsstore.Store {
	t.Helper()
	return openWith(t, ts.options(t, obs))
}

// openWith opens a store with opts and closes it when the test ends.
func openWith(t testing.TB, opts natsstore.Options) *natsstore.Store {
	t.Helper()
	s, err := natsstore.Open(testkit.Ctx(t), opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}
