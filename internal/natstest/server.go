package natstest

import (
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
)

// startLimit bounds the wait for a server to accept connections.
const startLimit = 20 * time.Second

// Server is an embedded nats-server with JetStream, storing in a folder.
type Server struct {
	srv  *server.Server
	Opts server.Options
}

// Start starts a server storing in dir (a fresh temporary folder when
// empty) and shuts it down when the test ends.
func Start(t testing.TB, dir string) *Server {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	s := &Server{Opts: DefaultOptions(dir)}
	require.NoError(t, s.Launch())
	t.Cleanup(s.Stop)
	return s
}

// DefaultOptions are the server options of the tests: loopback, a free
// port, JetStream in dir, 4 MiB payloads, no logs, no signal handlers. Its
// file storage limit is far above the disk's, because every history stream
// reserves its bound (1 GiB by default) and a shared server holds the
// streams of many namespaces, which write little.
func DefaultOptions(dir string) server.Options {
	return server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir,
		JetStreamMaxStore: 1 << 50, MaxPayload: 4 << 20, NoLog: true, NoSigs: true}
}

// Launch starts the server with s.Opts; the port it got is kept in
// s.Opts, so that a restart keeps it.
func (s *Server) Launch() error {
	opts := s.Opts
	srv, err := server.NewServer(&opts)
	if err != nil {
		return err
	}
	go srv.Start()
	if !srv.ReadyForConnections(startLimit) {
		srv.Shutdown()
		return fmt.Errorf("nats-server did not start within %s", startLimit)
	}
	s.srv = srv
	s.Opts.Port = srv.Addr().(*net.TCPAddr).Port
	return nil
}

// Stop shuts the server down and waits until it is down.
func (s *Server) Stop() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}

// Restart stops the server and starts it again on the same folder and
// port.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	require.NoError(t, s.Launch())
}

// URL is the server's client URL.
func (s *Server) URL() string { return s.srv.ClientURL() }

// Connect opens a client connection that reconnects for ever, closed
// when the test ends.
func (s *Server) Connect(t testing.TB, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.URL(), append([]nats.Option{nats.MaxReconnects(-1),
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

var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
	sharedDir  string
	namespaces atomic.Int64
)

// Shared returns the test binary's shared server, started on first use.
// Tests that use it must not restart or stop it; each takes a Namespace
// of its own. Call Main from TestMain to shut it down at the end.
func Shared(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() {
		sharedDir, sharedErr = os.MkdirTemp("", "natstest-")
		if sharedErr != nil {
			return
		}
		shared = &Server{Opts: DefaultOptions(sharedDir)}
		sharedErr = shared.Launch()
	})
	require.NoError(t, sharedErr, "shared nats-server")
	return shared
}

// Main runs the tests of m and then shuts the shared server down, if one
// was started, removing its folder. Use it as TestMain's body:
//
//	func TestMain(m *testing.M) { natstest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if shared != nil && sharedErr == nil {
		shared.Stop()
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// Namespace is a stream, subject prefix and set of buckets no other test
// uses, for tests that share a server.
type Namespace struct {
	Stream, HistoryStream, SubjectPrefix                    string
	RegistryBucket, PresenceBucket, StateBucket, LockBucket string
	ArtifactsBucket                                         string
}

// NewNamespace returns a namespace nobody else in this test binary has.
func NewNamespace() Namespace {
	n := fmt.Sprintf("t%d", namespaces.Add(1))
	return Namespace{Stream: "MAILBOX_" + n, HistoryStream: "HISTORY_" + n, SubjectPrefix: "mb" + n,
		RegistryBucket: "reg-" + n, PresenceBucket: "presence-" + n, StateBucket: "state-" + n, LockBucket: "lock-" + n,
		ArtifactsBucket: "artifacts-" + n}
}

// Apply sets the namespace's names in opts.
func (n Namespace) Apply(opts *natsstore.Options) {
	opts.Stream, opts.HistoryStream, opts.SubjectPrefix = n.Stream, n.HistoryStream, n.SubjectPrefix
	opts.RegistryBucket, opts.PresenceBucket = n.RegistryBucket, n.PresenceBucket
	opts.StateBucket, opts.LockBucket = n.StateBucket, n.LockBucket
	opts.ArtifactsBucket = n.ArtifactsBucket
}

// Section returns the channels.mailbox.nats keys of the namespace on s,
// for a config that opens the store by name.
func (n Namespace) Section(s *Server) map[string]any {
	return map[string]any{"url": s.URL(), "stream": n.Stream, "historyStream": n.HistoryStream,
		"subjectPrefix": n.SubjectPrefix, "registryBucket": n.RegistryBucket, "presenceBucket": n.PresenceBucket,
		"stateBucket": n.StateBucket, "lockBucket": n.LockBucket, "artifactsBucket": n.ArtifactsBucket}
}
