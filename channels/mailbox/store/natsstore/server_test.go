package natsstore_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
)

// testServer is an embedded nats-server with JetStream, storing in a
// temporary folder.
type testServer struct {
	srv  *server.Server
	opts server.Options
}

// startServer starts a server storing in dir (a fresh temporary folder when
// empty) and shuts it down when the test ends.
func startServer(t testing.TB, dir string) *testServer {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	ts := &testServer{opts: server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir,
		MaxPayload: 4 << 20, NoLog: true, NoSigs: true}}
	ts.start(t)
	return ts
}

// start starts the server with ts.opts.
func (ts *testServer) start(t testing.TB) {
	t.Helper()
	opts := ts.opts
	srv, err := server.NewServer(&opts)
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(20*time.Second), "nats-server did not start")
	ts.srv = srv
	ts.opts.Port = srv.Addr().(*net.TCPAddr).Port // a restart keeps the port
	t.Cleanup(ts.stop)
}

// stop shuts the server down and waits until it is down.
func (ts *testServer) stop() {
	ts.srv.Shutdown()
	ts.srv.WaitForShutdown()
}

// restart stops the server and starts it again on the same folder and port.
func (ts *testServer) restart(t testing.TB) {
	t.Helper()
	ts.stop()
	ts.start(t)
}

func (ts *testServer) url() string { return ts.srv.ClientURL() }

// connect opens a client connection, closed when the test ends.
func (ts *testServer) connect(t testing.TB, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(ts.url(), append([]nats.Option{nats.MaxReconnects(-1),
		nats.ReconnectWait(50 * time.Millisecond),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subj := ""
			if sub != nil {
				subj = sub.Subject
			}
			t.Logf("nats client error on %q: %v", subj, err)
		})}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// testOptions are the store options of these tests: short lock TTL and
// MaxDeliver 3.
func testOptions(nc *nats.Conn, obs store.Observer) natsstore.Options {
	return natsstore.Options{Conn: nc, OwnConn: true, Observer: obs, MaxDeliver: 3,
		AckWait: 10 * time.Second, LockTTL: 5 * time.Second, MaxMessageBytes: 1 << 20}
}

// open opens a store on its own connection to ts.
func (ts *testServer) open(t testing.TB, obs store.Observer) *natsstore.Store {
	t.Helper()
	return openWith(t, testOptions(ts.connect(t), obs))
}

// openWith opens a store with opts and closes it when the test ends.
func openWith(t testing.TB, opts natsstore.Options) *natsstore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := natsstore.Open(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}
