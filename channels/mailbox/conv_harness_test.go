package mailbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// convWorld is one mailbox tree shared by the agents of a test.
type convWorld struct {
	t     *testing.T
	store *fsstore.Store
	st    *store.Store // the facade over store, as the channels use it
	clock *clock.Manual
	seen  convEvents
}

// convEvents records the store's events and lets a test wait for one.
type convEvents struct{ *testkit.Events }

// waitFor waits for an event of kind about message id (any, when empty).
func (e convEvents) waitFor(t *testing.T, kind store.EventKind, id string) store.Event {
	t.Helper()
	return e.WaitKind(t, kind, func(ev store.Event) bool { return id == "" || ev.MessageID == id })
}

func newConvWorld(t *testing.T) *convWorld {
	t.Helper()
	w := &convWorld{t: t, clock: clock.NewManual(time.Now()), seen: convEvents{testkit.NewEvents()}}
	st, err := fsstore.Open(fsstore.Options{Root: t.TempDir() + "/mb", NoSync: true, PollInterval: time.Hour,
		AuditLog: true, Observer: w.seen.Observe, Now: w.clock.Now})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	w.store, w.st = st, store.New(st, nil)
	return w
}

// convAgent is a running channel and its bus.
type convAgent struct {
	*mailbox.Channel
	bus *bus.Bus
}

// start starts agent id's channel on the world's store.
func (w *convWorld) start(id string, mods ...func(*mailbox.Config)) *convAgent {
	w.t.Helper()
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync = id, w.store.Root(), false
	for _, m := range mods {
		m(&cfg)
	}
	b := bus.New(64)
	c, err := mailbox.New(cfg, b, mailbox.Options{Backend: w.st, Clock: w.clock})
	require.NoError(w.t, err)
	require.NoError(w.t, c.Start(context.Background()))
	a := &convAgent{Channel: c, bus: b}
	w.t.Cleanup(func() { a.stop(w.t) })
	return a
}

func (a *convAgent) stop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	require.NoError(t, a.Stop(ctx))
}

// next returns the next inbound message on the agent's bus, finished with
// (bus.InboundMessage.Done), as an agent that handled it at once.
func (a *convAgent) next(t *testing.T) bus.InboundMessage {
	t.Helper()
	in := a.take(t)
	in.Done()
	return in
}

// take returns the next inbound message on the agent's bus, which the
// agent is still working on.
func (a *convAgent) take(t *testing.T) bus.InboundMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	in, err := a.bus.ConsumeInbound(ctx)
	require.NoError(t, err, "no inbound message for %s", a.AgentID())
	return in
}

// post sends req from the agent, failing the test on error.
func (a *convAgent) post(t *testing.T, req route.Request) string {
	t.Helper()
	m, err := a.Post(context.Background(), req)
	require.NoError(t, err)
	return m.ID
}
