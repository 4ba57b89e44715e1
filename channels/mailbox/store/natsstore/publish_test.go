package natsstore_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// cutProxy is a TCP proxy to a server that can swallow what goes one way,
// as a connection that broke on the way does, and then cut it.
type cutProxy struct {
	l      net.Listener
	target string

	mu        sync.Mutex
	swallow   int             // toServer or toClient: what is swallowed from now on; 0: nothing
	swallowed strings.Builder // what was swallowed
	took      chan struct{}   // a poke at each swallowed write
	conns     []net.Conn
}

// The ways through a cutProxy.
const (
	toServer = 1 + iota
	toClient
)

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{l: l, target: target, took: make(chan struct{}, 1)}
	go p.accept()
	t.Cleanup(func() { l.Close(); p.cut() })
	return p
}

func (p *cutProxy) url() string { return "nats://" + p.l.Addr().String() }

func (p *cutProxy) accept() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go p.pipe(c, s, toServer)
		go p.pipe(s, c, toClient)
	}
}

// pipe copies what from sends to to, unless it swallows that way.
func (p *cutProxy) pipe(from, to net.Conn, way int) {
	defer to.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if err != nil {
			return
		}
		p.mu.Lock()
		swallow := p.swallow == way
		if swallow {
			p.swallowed.Write(buf[:n])
		}
		p.mu.Unlock()
		if swallow {
			select {
			case p.took <- struct{}{}:
			default:
			}
			continue
		}
		if _, err := to.Write(buf[:n]); err != nil {
			return
		}
	}
}

// startSwallowing makes the proxy swallow what goes way from now on.
func (p *cutProxy) startSwallowing(way int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.swallow = way
}

// awaitSwallowed waits until what was swallowed contains s.
func (p *cutProxy) awaitSwallowed(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(testkit.WaitLimit)
	for {
		p.mu.Lock()
		got := strings.Contains(p.swallowed.String(), s)
		p.mu.Unlock()
		if got {
			return
		}
		select {
		case <-p.took:
		case <-deadline:
			require.Fail(t, "the proxy never got "+s)
		}
	}
}

// cut closes every connection and stops swallowing: the clients
// reconnect through the proxy to the server.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns, p.swallow = nil, 0
}

// TestDeliverLostWithTheConnection: a publish lost with a connection that
// broke is sent again when the connection is back, instead of waiting for
// an acknowledgement that never comes until the caller's deadline; the
// message is stored once and reported sent once. Lost on the way to the
// server, the copy sent again is the one stored; stored and its
// acknowledgement lost on the way back, the copy sent again is dropped as
// a duplicate and the send is reported all the same.
func TestDeliverLostWithTheConnection(t *testing.T) {
	for name, tc := range map[string]struct {
		way  int
		seen func(m *envelope.Message) string // what the proxy swallows
	}{
		"publish lost": {toServer, func(m *envelope.Message) string { return m.ID }},
		"ack lost":     {toClient, func(*envelope.Message) string { return `"seq":1` }},
	} {
		t.Run(name, func(t *testing.T) {
			ts := sharedServer(t)
			proxy := newCutProxy(t, strings.TrimPrefix(ts.URL(), "nats://"))
			ev := testkit.NewEvents()
			opts := ts.options(t, ev.Observe)
			opts.Conn.Close()
			nc, err := nats.Connect(proxy.url(), nats.ReconnectWait(10*time.Millisecond), nats.MaxReconnects(-1))
			require.NoError(t, err)
			opts.Conn = nc
			be := openWith(t, opts)

			proxy.startSwallowing(tc.way)
			m := storetest.NewMessage("alice", "bob", "lost on the way, sent again")
			ctx, cancel := context.WithTimeout(context.Background(), 2*testkit.WaitLimit)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- be.Deliver(ctx, m) }()
			proxy.awaitSwallowed(t, tc.seen(m))
			proxy.cut()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(testkit.WaitLimit):
				require.Fail(t, "Deliver still waits for the acknowledgement the connection lost")
			}
			sent := ev.CountKind(driver.EventSent)
			assert.Equal(t, 1, sent, "reported sent once")

			js, err := jetstream.New(ts.Connect(t))
			require.NoError(t, err)
			stream, err := js.Stream(testkit.Ctx(t), ts.ns.Stream)
			require.NoError(t, err)
			subject := ts.subject("bob.inbox.alice")
			info, err := stream.Info(testkit.Ctx(t), jetstream.WithSubjectFilter(subject))
			require.NoError(t, err)
			assert.Equal(t, uint64(1), info.State.Subjects[subject], "stored once")
		})
	}
}
