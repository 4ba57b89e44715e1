package mailbox

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// convWait bounds every wait of these tests; reaching it is a failure.
const convWait = 20 * time.Second

// convClock is a clock the test moves by hand.
type convClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *convClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *convClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// convWorld is one mailbox tree shared by the agents of a test.
type convWorld struct {
	t     *testing.T
	store *fsstore.Store
	clock *convClock
	seen  *convEvents
}

// convEvents records the store's events and lets a test wait for one.
type convEvents struct {
	mu      sync.Mutex
	events  []store.Event
	changed chan struct{}
}

func (e *convEvents) observe(ev store.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, ev)
	close(e.changed)
	e.changed = make(chan struct{})
}

// waitFor waits for an event of kind about message id.
func (e *convEvents) waitFor(t *testing.T, kind store.EventKind, id string) store.Event {
	t.Helper()
	deadline := time.After(convWait)
	for {
		e.mu.Lock()
		for _, ev := range e.events {
			if ev.Kind == kind && ev.MessageID == id {
				e.mu.Unlock()
				return ev
			}
		}
		changed := e.changed
		e.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no %s event for %s within %s", kind, id, convWait)
		}
	}
}

func newConvWorld(t *testing.T) *convWorld {
	t.Helper()
	w := &convWorld{t: t, clock: &convClock{now: time.Now()}, seen: &convEvents{changed: make(chan struct{})}}
	st, err := fsstore.Open(fsstore.Options{Root: t.TempDir() + "/mb", NoSync: true, PollInterval: time.Hour,
		AuditLog: true, Observer: w.seen.observe, Now: w.clock.Now})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	w.store = st
	return w
}

// convAgent is a running channel and its bus.
type convAgent struct {
	*Channel
	bus *bus.Bus
}

// start starts agent id's channel on the world's store.
func (w *convWorld) start(id string, mods ...func(*Config)) *convAgent {
	w.t.Helper()
	cfg := DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync = id, w.store.Root(), false
	for _, m := range mods {
		m(&cfg)
	}
	b := bus.New(64)
	c, err := New(cfg, b, Options{Backend: w.store, Now: w.clock.Now})
	require.NoError(w.t, err)
	require.NoError(w.t, c.Start(context.Background()))
	a := &convAgent{Channel: c, bus: b}
	w.t.Cleanup(func() { a.stop(w.t) })
	return a
}

func (a *convAgent) stop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), convWait)
	defer cancel()
	require.NoError(t, a.Stop(ctx))
}

// next returns the next inbound message on the agent's bus.
func (a *convAgent) next(t *testing.T) bus.InboundMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), convWait)
	defer cancel()
	in, err := a.bus.ConsumeInbound(ctx)
	require.NoError(t, err, "no inbound message for %s", a.AgentID())
	return in
}

// post sends req from the agent, failing the test on error.
func (a *convAgent) post(t *testing.T, req Request) string {
	t.Helper()
	m, err := a.Post(context.Background(), req)
	require.NoError(t, err)
	return m.ID
}
