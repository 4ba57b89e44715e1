package mailbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"   // registers the backend "fs"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore" // registers the backend "nats"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// hookedStore is the filesystem store with every stored card recorded, so
// a test can wait for a registration, a heartbeat or a status change.
type hookedStore struct {
	*fsstore.Store
	cards *testkit.Log[envelope.Card]
	gate  atomic.Pointer[cardGate]
	// slowBeats is how many heartbeats from now on time out (a store too
	// slow to answer); each is logged in timedOut at the time it was for.
	slowBeats atomic.Int32
	timedOut  *testkit.Log[time.Time]
	updates   atomic.Int32 // UpdateCard calls
}

// cardGate holds back one card update: entered is closed when it arrives,
// and it goes on when release is closed.
type cardGate struct{ entered, release chan struct{} }

// holdNextCardUpdate makes the next UpdateCard wait at the gate.
func (h *hookedStore) holdNextCardUpdate() *cardGate {
	g := &cardGate{entered: make(chan struct{}), release: make(chan struct{})}
	h.gate.Store(g)
	return g
}

// UpdateCard implements driver.Registry.
func (h *hookedStore) UpdateCard(ctx context.Context, id string, f func(*envelope.Card)) (envelope.Card, error) {
	h.updates.Add(1)
	if g := h.gate.Swap(nil); g != nil {
		close(g.entered)
		<-g.release
	}
	c, err := h.Store.UpdateCard(ctx, id, f)
	if err == nil {
		h.cards.Add(c)
	}
	return c, err
}

// LeaveCard implements driver.CardLeaver, as UpdateCard above: the card
// left is recorded once it is in the registry.
func (h *hookedStore) LeaveCard(ctx context.Context, id string, f func(*envelope.Card)) (bool, error) {
	h.updates.Add(1)
	if g := h.gate.Swap(nil); g != nil {
		close(g.entered)
		<-g.release
	}
	visible, err := h.Store.LeaveCard(ctx, id, f)
	if visible {
		if c, err := h.Store.Card(ctx, id); err == nil {
			h.cards.Add(c)
		}
	}
	return visible, err
}

// Heartbeat implements driver.Heartbeater: a heartbeat is recorded as the
// card it returns, as readers now see it.
func (h *hookedStore) Heartbeat(ctx context.Context, id string, now time.Time, maxAge time.Duration) (envelope.Card, error) {
	if h.slowBeats.Add(-1) >= 0 {
		h.timedOut.Add(now)
		return envelope.Card{}, fmt.Errorf("heartbeat of %q: %w", id, context.DeadlineExceeded)
	}
	h.slowBeats.Store(0)
	c, err := h.Store.Heartbeat(ctx, id, now, maxAge)
	if err == nil {
		h.cards.Add(c)
	}
	return c, err
}

// env is one mailbox tree on disk with its store, shared by the agents of
// a test.
type env struct {
	root   string
	store  *hookedStore
	st     *store.Store // the facade over store, as the channels use it
	events *testkit.Log[store.Event]
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{root: filepath.Join(t.TempDir(), "mailboxes"), events: testkit.NewLog[store.Event]()}
	s, err := fsstore.Open(fsstore.Options{Root: e.root, NoSync: true, PollInterval: 2 * time.Second,
		Observer: e.events.Add})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	e.store = &hookedStore{Store: s, cards: testkit.NewLog[envelope.Card](), timedOut: testkit.NewLog[time.Time]()}
	e.st = store.New(e.store, nil)
	return e
}

// config returns a valid config for agent on this tree. Heartbeats are
// rare unless a test asks for them.
func (e *env) config(agent string) mailbox.Config {
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync = agent, e.root, false
	cfg.HeartbeatInterval, cfg.OfflineAfter = 3600, 7200
	return cfg
}

// member is a running mailbox channel and its bus.
type member struct {
	*mailbox.Channel
	bus *bus.Bus
}

// start starts a channel for cfg on the tree (opts.Backend is the shared
// store) and stops it when the test ends.
func (e *env) start(t *testing.T, cfg mailbox.Config, opts mailbox.Options) *member {
	t.Helper()
	b := bus.New(64)
	opts.Backend = e.st
	ch, err := mailbox.New(cfg, b, opts)
	require.NoError(t, err)
	require.NoError(t, ch.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancel()
		_ = ch.Stop(ctx)
		b.Close()
	})
	return &member{Channel: ch, bus: b}
}

// startAgent starts a channel for id with the test config, changed by mods.
func (e *env) startAgent(t *testing.T, id string, mods ...func(*mailbox.Config)) *member {
	t.Helper()
	cfg := e.config(id)
	for _, m := range mods {
		m(&cfg)
	}
	return e.start(t, cfg, mailbox.Options{})
}

// consume returns the next inbound message on the agent's bus, finished
// with (bus.InboundMessage.Done), as an agent that handled it at once.
func (a *member) consume(t *testing.T) bus.InboundMessage {
	t.Helper()
	in := a.take(t)
	in.Done()
	return in
}

// take returns the next inbound message on the agent's bus, which the
// agent is still working on.
func (a *member) take(t *testing.T) bus.InboundMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	in, err := a.bus.ConsumeInbound(ctx)
	require.NoError(t, err, "no inbound message on the bus of %s", a.AgentID())
	return in
}

// meta returns the mailbox details of an inbound message.
func metaOf(t *testing.T, in bus.InboundMessage) *meta.Meta {
	t.Helper()
	m, ok := meta.Of(in.Metadata)
	require.True(t, ok, "inbound message without mailbox metadata: %+v", in)
	return m
}

// peer is an agent played by the test itself: it reads its inbox directly.
type peer struct {
	id    string
	inbox driver.Inbox
	seen  *testkit.Log[*envelope.Message]
}

// peer opens id's inbox and keeps every message that arrives there. The
// peer has a signing key, pinned as a switchboard agent's is at its first
// start, with which deliver signs what it sends.
func (e *env) peer(t *testing.T, id string) *peer {
	t.Helper()
	key, err := keys.Load(context.Background(), e.st, id, keys.Source{Create: true})
	require.NoError(t, err)
	_, err = keys.PinOwn(context.Background(), e.st, id, key, keys.Policy{}, time.Now())
	require.NoError(t, err)
	return e.nanobot(t, id)
}

// nanobot is a peer that has no key, as a nanobot agent: what it sends
// comes unsigned.
func (e *env) nanobot(t *testing.T, id string) *peer {
	t.Helper()
	in, err := e.store.OpenInbox(context.Background(), id)
	require.NoError(t, err)
	p := &peer{id: id, inbox: in, seen: testkit.NewLog[*envelope.Message]()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			d, err := in.Next(ctx)
			if err != nil {
				return
			}
			_ = in.Ack(ctx, d)
			p.seen.Add(d.Message)
		}
	}()
	t.Cleanup(func() { cancel(); <-done; in.Close() })
	return p
}

// expect waits for a message in the peer's inbox that match accepts.
func (p *peer) expect(t *testing.T, what string, match func(*envelope.Message) bool) *envelope.Message {
	t.Helper()
	return p.seen.Take(t, what+" in the inbox of "+p.id, match)
}

// expectUpdate waits for a task_update of task in state.
func (p *peer) expectUpdate(t *testing.T, task string, state envelope.TaskState) *envelope.Message {
	t.Helper()
	return p.expect(t, fmt.Sprintf("task_update %s %s", task, state), func(m *envelope.Message) bool {
		return m.Type == envelope.TypeTaskUpdate && m.Task != nil && m.Task.ID == task && m.Task.State == state
	})
}

// msg returns a message from → to as a nanobot or switchboard agent
// would write it.
func msg(from, to string, typ envelope.Type, text string) *envelope.Message {
	m := &envelope.Message{ID: envelope.NewID(), From: from, To: to, Timestamp: envelope.NewTime(time.Now().UTC().Truncate(time.Microsecond)),
		Type: typ, TTL: 3, Trace: []string{from}}
	if text != "" {
		m.Content.Parts = []envelope.Part{envelope.TextPart(text)}
	}
	return m
}

// task returns a task request from → to.
func task(from, to, id, text string) *envelope.Message {
	m := msg(from, to, envelope.TypeTask, text)
	m.Task = &envelope.Task{ID: id, State: envelope.StatePending}
	return m
}

// deliver stores m in its recipient's inbox, signed by its sender when
// the sender has a key on the tree (a peer, an agent that ran), as that
// agent would send it; unsigned otherwise, as nanobot sends.
func (e *env) deliver(t *testing.T, m *envelope.Message) {
	t.Helper()
	signIfKeyed(t, e.st, m)
	require.NoError(t, e.store.Deliver(context.Background(), m))
}

// signIfKeyed signs m with the key of its sender when st keeps one.
func signIfKeyed(t *testing.T, st *store.Store, m *envelope.Message) {
	t.Helper()
	key, err := keys.Load(context.Background(), st, m.From, keys.Source{})
	if errors.Is(err, keys.ErrNoKey) {
		return
	}
	require.NoError(t, err)
	require.NoError(t, envelope.Sign(m, key))
}

var rawSeq atomic.Int64

// deliverRaw writes data into agent's inbox as nanobot does: a .msg.tmp
// file renamed to .msg.json.
func (e *env) deliverRaw(t *testing.T, agent, from, data string) string {
	t.Helper()
	dir := filepath.Join(e.root, agent, "inbox")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	name := fmt.Sprintf("%013d_%s_raw%06d.msg.json", time.Now().UnixMilli(), from, rawSeq.Add(1))
	tmp := filepath.Join(dir, name[:len(name)-len(".json")]+".tmp")
	require.NoError(t, os.WriteFile(tmp, []byte(data), 0o600))
	require.NoError(t, os.Rename(tmp, filepath.Join(dir, name)))
	return name
}

// card reads agent's card from the registry.
func (e *env) card(t *testing.T, agent string) envelope.Card {
	t.Helper()
	c, err := e.store.Card(context.Background(), agent)
	require.NoError(t, err)
	return c
}

// waitCard waits for a stored card of agent that match accepts.
func (e *env) waitCard(t *testing.T, agent, what string, match func(envelope.Card) bool) envelope.Card {
	t.Helper()
	return e.store.cards.Take(t, what+" card of "+agent, func(c envelope.Card) bool {
		return c.AgentID == agent && match(c)
	})
}

// waitEvent waits for a store event of kind about message id (any message
// when id is empty).
func (e *env) waitEvent(t *testing.T, kind store.EventKind, id string) store.Event {
	t.Helper()
	return e.events.Take(t, string(kind)+" event "+id, func(ev store.Event) bool {
		return ev.Kind == kind && (id == "" || ev.MessageID == id)
	})
}

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
