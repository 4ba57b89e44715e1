package bridge

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestMain(m *testing.M) { natstest.Main(m) }

// world is a folder store and a NATS store (a namespace of the shared
// server), and a bridge between them that the test drives round by round.
type world struct {
	t      *testing.T
	folder *store.Store
	nats   *store.Store
	root   string
	now    time.Time
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, root: t.TempDir(), now: time.Now()}
	var err error
	w.folder, err = store.Open(fsstore.BackendName, store.Config{Root: w.root, MaxMessageBytes: 1 << 20, OfflineAfter: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { w.folder.Close() })
	w.nats = w.openNATS(natstest.NewNamespace())
	return w
}

func (w *world) openNATS(ns natstest.Namespace) *store.Store {
	w.t.Helper()
	st, err := store.Open(natsstore.BackendName, store.Config{MaxMessageBytes: 1 << 20, OfflineAfter: 30 * time.Second,
		Section: config.Section{Path: natsstore.ConfigPath, Raw: ns.Section(natstest.Shared(w.t))}})
	require.NoError(w.t, err)
	w.t.Cleanup(func() { st.Close() })
	return st
}

// bridge returns a bridge between the two stores, not running: the test
// calls syncCards for each round; the forwarders it starts end with the
// test.
func (w *world) bridge(id string) *Bridge {
	w.t.Helper()
	return w.join(id, Side{Name: "folder", Store: w.folder}, Side{Name: "nats", Store: w.nats})
}

// join returns a bridge between a and b, as bridge does.
func (w *world) join(id string, a, b Side) *Bridge {
	w.t.Helper()
	br, err := New(Config{ID: id, A: a, B: b,
		Now: func() time.Time { return w.now }, Interval: 20 * time.Millisecond, Timeout: testkit.Scaled(2 * time.Second)})
	require.NoError(w.t, err)
	w.t.Cleanup(func() {
		br.mu.Lock()
		for _, f := range br.forwarders {
			f.cancel()
		}
		br.mu.Unlock()
		br.wg.Wait()
	})
	return br
}

// register writes a native card of id into st, beating at w.now.
func (w *world) register(st *store.Store, id string) {
	w.t.Helper()
	_, err := st.UpdateCard(testkit.Ctx(w.t), id, func(c *envelope.Card) {
		c.Description, c.Capabilities, c.Status = id+" agent", []string{"sorting"}, envelope.StatusIdle
		c.LastHeartbeat = envelope.NewTime(w.now)
		c.PublicKey = "U" + id
	})
	require.NoError(w.t, err)
}

// message returns a new message from from to to.
func message(from, to, text string) *envelope.Message {
	return &envelope.Message{ID: envelope.NewID(), From: from, To: to, Timestamp: envelope.NewTime(time.Now()),
		Type: envelope.TypeMessage, TTL: 3, Trace: []string{from},
		Content: envelope.Content{Parts: []envelope.Part{{Type: envelope.PartText, Text: text}}}}
}

// next takes the next message of agent's inbox in st and acknowledges it.
func next(t *testing.T, st *store.Store, agent string) *envelope.Message {
	t.Helper()
	ctx := testkit.Ctx(t)
	in, err := st.OpenInbox(ctx, agent)
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(ctx)
	require.NoError(t, err)
	require.NoError(t, in.Ack(ctx, d))
	return d.Message
}

func TestCardsAndMessagesBothWays(t *testing.T) {
	w := newWorld(t)
	w.register(w.folder, "nano")
	w.register(w.nats, "worker")
	b := w.bridge("b1")
	ctx := testkit.Ctx(t)
	b.syncCards(ctx)

	worker, err := w.folder.Card(ctx, "worker")
	require.NoError(t, err)
	assert.Equal(t, "b1", worker.BridgedBy, "marked as copied by the bridge")
	assert.Equal(t, "worker agent", worker.Description)
	assert.Equal(t, "Uworker", worker.PublicKey, "the key travels, so that a receiver pins it")
	assert.Equal(t, envelope.StatusIdle, worker.EffectiveStatus(w.now, 30*time.Second))
	nano, err := w.nats.Card(ctx, "nano")
	require.NoError(t, err)
	assert.Equal(t, "b1", nano.BridgedBy)
	pres, err := w.nats.Presence(ctx, time.Now(), 30*time.Second)
	require.NoError(t, err)
	assert.True(t, pres["nano"].Online, "the copy is online on NATS (its presence key)")

	b.syncCards(ctx)
	again, err := w.folder.Card(ctx, "worker")
	require.NoError(t, err)
	assert.Equal(t, worker, again, "an unchanged card is not written again")

	task := message("nano", "worker", "sort 3 1 2")
	require.NoError(t, w.folder.Deliver(ctx, task))
	got := next(t, w.nats, "worker")
	assert.Equal(t, task.ID, got.ID)
	assert.Equal(t, []string{"b1"}, got.Bridges)
	assert.Equal(t, "sort 3 1 2", got.Text())

	reply := message("worker", "nano", "1 2 3")
	reply.ReplyTo = task.ID
	require.NoError(t, w.nats.Deliver(ctx, reply))
	back := next(t, w.folder, "nano")
	assert.Equal(t, reply.ID, back.ID)
	assert.Equal(t, task.ID, back.ReplyTo)
	assert.Equal(t, []string{"b1"}, back.Bridges)
}

// A signed message crosses the bridge and still verifies: the bridges
// key is no part of what is signed.
func TestSignatureSurvives(t *testing.T) {
	w := newWorld(t)
	w.register(w.folder, "nano")
	w.register(w.nats, "worker")
	b := w.bridge("b1")
	ctx := testkit.Ctx(t)
	b.syncCards(ctx)
	key, err := nkeys.CreateUser()
	require.NoError(t, err)
	m := message("worker", "nano", "signed")
	require.NoError(t, envelope.Sign(m, key))
	require.NoError(t, w.nats.Deliver(ctx, m))
	got := next(t, w.folder, "nano")
	require.NotNil(t, got.Signature)
	assert.NoError(t, envelope.VerifySignature(got, key), "the signature verifies after the crossing")
}

// A message the destination holds already (the bridge was killed after
// delivering it, before acknowledging it) is acknowledged, not sent a
// second time, even once its receiver has handled the first copy.
func TestRedeliveredHeldNotForwardedAgain(t *testing.T) {
	w := newWorld(t)
	w.register(w.folder, "nano")
	w.register(w.nats, "worker")
	ctx := testkit.Ctx(t)
	m := message("worker", "nano", "once")
	require.NoError(t, w.nats.Deliver(ctx, m))
	in, err := w.nats.OpenInbox(ctx, "nano") // a bridge claims it ...
	require.NoError(t, err)
	_, err = in.Next(ctx)
	require.NoError(t, err)
	fwd := *m
	fwd.Bridges = []string{"b1"}
	require.NoError(t, w.folder.Deliver(ctx, &fwd)) // ... delivers it ...
	require.NoError(t, in.Close())                  // ... and dies before the acknowledgement
	assert.Equal(t, m.ID, next(t, w.folder, "nano").ID, "nanobot handles the first copy")

	b := w.bridge("b1")
	b.syncCards(ctx)
	after := message("worker", "nano", "after")
	require.NoError(t, w.nats.Deliver(ctx, after))
	assert.Equal(t, after.ID, next(t, w.folder, "nano").ID, "the next message comes, the first not again")
	_, dup, _, _ := b.Counts()
	assert.Equal(t, 1, dup)
	depth, err := w.folder.Depth(ctx, "nano")
	require.NoError(t, err)
	assert.Zero(t, depth)
}

// A message that crossed the bridge before is set aside with the reason,
// and the bridge goes on.
func TestLoopSetAside(t *testing.T) {
	w := newWorld(t)
	w.register(w.folder, "nano")
	w.register(w.nats, "worker")
	ctx := testkit.Ctx(t)
	looped := message("nano", "worker", "round and round")
	looped.Bridges = []string{"b1"}
	require.NoError(t, w.folder.Deliver(ctx, looped))
	fine := message("nano", "worker", "fine")
	require.NoError(t, w.folder.Deliver(ctx, fine))
	b := w.bridge("b1")
	b.syncCards(ctx)
	assert.Equal(t, fine.ID, next(t, w.nats, "worker").ID)
	aside, err := w.folder.SetAside(ctx, "worker")
	require.NoError(t, err)
	require.Len(t, aside, 1)
	assert.Contains(t, aside[0].Reason, "crossed this bridge before")
}

// An artifact named by a file part is copied to the destination, verified;
// one the source does not hold sets its message aside.
func TestArtifactCopied(t *testing.T) {
	w := newWorld(t)
	w.register(w.folder, "nano")
	w.register(w.nats, "worker")
	ctx := testkit.Ctx(t)
	src, err := w.folder.Artifacts()
	require.NoError(t, err)
	data := bytes.Repeat([]byte("report "), 1000)
	digest := envelope.Digest(data)
	_, err = src.Put(ctx, store.Artifact{Digest: digest, Size: int64(len(data)), Name: "r.txt"}, bytes.NewReader(data))
	require.NoError(t, err)
	missing := envelope.Digest([]byte("nowhere"))
	for _, d := range []string{missing, digest} {
		m := message("nano", "worker", "see the file")
		m.Content.Parts = append(m.Content.Parts, envelope.Part{Type: envelope.PartFile, Name: "r.txt", URI: envelope.ArtifactURI(d), SHA256: d, Size: 7})
		if d == digest {
			m.Content.Parts[1].Size = int64(len(data))
		}
		require.NoError(t, w.folder.Deliver(ctx, m))
	}
	b := w.bridge("b1")
	b.syncCards(ctx)
	got := next(t, w.nats, "worker")
	assert.Equal(t, envelope.ArtifactURI(digest), got.Content.Parts[1].URI)
	dst, err := w.nats.Artifacts()
	require.NoError(t, err)
	rc, _, err := dst.Open(ctx, digest)
	require.NoError(t, err)
	copied, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	assert.Equal(t, data, copied)
	aside, err := w.folder.SetAside(ctx, "worker")
	require.NoError(t, err)
	require.Len(t, aside, 1)
	assert.Contains(t, aside[0].Reason, "artifact "+envelope.ArtifactURI(missing)+" not copied")
}

// A copy follows its source's presence: offline when the source stops
// beating, and a copy whose agent lost its card goes offline.
func TestPresenceFollowsSource(t *testing.T) {
	w := newWorld(t)
	w.register(w.nats, "worker")
	b := w.bridge("b1")
	ctx := testkit.Ctx(t)
	b.syncCards(ctx)
	card, err := w.folder.Card(ctx, "worker")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusIdle, card.EffectiveStatus(w.now, 30*time.Second))

	_, err = w.nats.UpdateCard(ctx, "worker", func(c *envelope.Card) { c.Status = envelope.StatusOffline })
	require.NoError(t, err)
	b.syncCards(ctx)
	card, err = w.folder.Card(ctx, "worker")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, card.Status, "the copy goes offline with its agent")

	w.now = w.now.Add(time.Minute) // no heartbeat since: the copy's heartbeat is the source's
	assert.Equal(t, envelope.StatusOffline, card.EffectiveStatus(w.now, 30*time.Second))
}

// Two agents of one id, one on each side: neither card is copied.
func TestClashNotCopied(t *testing.T) {
	w := newWorld(t)
	w.register(w.folder, "twin")
	w.register(w.nats, "twin")
	b := w.bridge("b1")
	ctx := testkit.Ctx(t)
	b.syncCards(ctx)
	for _, st := range []*store.Store{w.folder, w.nats} {
		c, err := st.Card(ctx, "twin")
		require.NoError(t, err)
		assert.Empty(t, c.BridgedBy)
	}
	assert.Empty(t, b.forwarders)
}

// A chain of bridges, folder - NATS - another folder, joins the agents of
// both folders: a copy travels onward, one hop further each time, never
// back; a message crosses both bridges.
func TestChainOfBridges(t *testing.T) {
	w := newWorld(t)
	other, err := store.Open(fsstore.BackendName, store.Config{Root: t.TempDir(), MaxMessageBytes: 1 << 20, OfflineAfter: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { other.Close() })
	w.register(w.folder, "nano")
	w.register(other, "nano2")
	b1 := w.bridge("b1")
	b2 := w.join("b2", Side{Name: "nats", Store: w.nats}, Side{Name: "folder2", Store: other})
	ctx := testkit.Ctx(t)
	for range 2 {
		b1.syncCards(ctx)
		b2.syncCards(ctx)
	}
	card := func(st *store.Store, id string) envelope.Card {
		c, err := st.Card(ctx, id)
		require.NoError(t, err)
		return c
	}
	assert.Equal(t, 0, hops(card(w.folder, "nano")), "nano's own card stays")
	assert.Equal(t, 1, hops(card(w.nats, "nano")))
	assert.Equal(t, 2, hops(card(other, "nano")))
	assert.Equal(t, "b2", card(other, "nano").BridgedBy)
	assert.Equal(t, 0, hops(card(other, "nano2")))
	assert.Equal(t, 1, hops(card(w.nats, "nano2")))
	assert.Equal(t, 2, hops(card(w.folder, "nano2")))
	assert.Equal(t, "b1", card(w.folder, "nano2").BridgedBy)

	m := message("nano2", "nano", "across two bridges")
	require.NoError(t, other.Deliver(ctx, m))
	got := next(t, w.folder, "nano")
	assert.Equal(t, m.ID, got.ID)
	assert.Equal(t, []string{"b2", "b1"}, got.Bridges)
	back := message("nano", "nano2", "and back")
	require.NoError(t, w.folder.Deliver(ctx, back))
	got = next(t, other, "nano2")
	assert.Equal(t, []string{"b1", "b2"}, got.Bridges)
}

// Two bridges between the same stores agree: neither copies a copy back,
// and each card has one copy.
func TestParallelBridgesAgree(t *testing.T) {
	w := newWorld(t)
	w.register(w.folder, "nano")
	w.register(w.nats, "worker")
	b1, b2 := w.bridge("b1"), w.bridge("b2")
	ctx := testkit.Ctx(t)
	for range 3 {
		b1.syncCards(ctx)
		b2.syncCards(ctx)
	}
	nano, err := w.folder.Card(ctx, "nano")
	require.NoError(t, err)
	assert.Empty(t, nano.BridgedBy)
	worker, err := w.nats.Card(ctx, "worker")
	require.NoError(t, err)
	assert.Empty(t, worker.BridgedBy)
	copied, err := w.nats.Card(ctx, "nano")
	require.NoError(t, err)
	assert.Equal(t, "b1", copied.BridgedBy, "the first copy stays: the second bridge finds it up to date")
	assert.Equal(t, 1, copied.BridgeHops)
}

// The bridge outlives a restart of the NATS server: a message sent on the
// folder while the server is down is forwarded once it is back.
func TestServerRestart(t *testing.T) {
	srv := natstest.Start(t, "")
	w := &world{t: t, root: t.TempDir(), now: time.Now()}
	var err error
	w.folder, err = store.Open(fsstore.BackendName, store.Config{Root: w.root, MaxMessageBytes: 1 << 20, OfflineAfter: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { w.folder.Close() })
	ns := natstest.NewNamespace()
	section := ns.Section(srv)
	w.nats, err = store.Open(natsstore.BackendName, store.Config{MaxMessageBytes: 1 << 20, OfflineAfter: 30 * time.Second,
		Section: config.Section{Path: natsstore.ConfigPath, Raw: section}})
	require.NoError(t, err)
	t.Cleanup(func() { w.nats.Close() })
	w.register(w.folder, "nano")
	w.register(w.nats, "worker")
	b := w.bridge("b1")
	ctx := testkit.Ctx(t)
	b.syncCards(ctx)
	first := message("nano", "worker", "before")
	require.NoError(t, w.folder.Deliver(ctx, first))
	assert.Equal(t, first.ID, next(t, w.nats, "worker").ID)

	srv.Stop()
	during := message("nano", "worker", "while the server is down")
	require.NoError(t, w.folder.Deliver(ctx, during))
	b.syncCards(ctx) // fails to read NATS's cards within Timeout, and says so: the forwarders go on
	srv.Restart(t)
	fresh, err := store.Open(natsstore.BackendName, store.Config{MaxMessageBytes: 1 << 20, OfflineAfter: 30 * time.Second,
		Section: config.Section{Path: natsstore.ConfigPath, Raw: section}}) // the test's reader, connected anew
	require.NoError(t, err)
	t.Cleanup(func() { fresh.Close() })
	assert.Equal(t, during.ID, next(t, fresh, "worker").ID, "forwarded once the server is back")
	reply := message("worker", "nano", "and the other way")
	require.NoError(t, fresh.Deliver(ctx, reply))
	assert.Equal(t, reply.ID, next(t, w.folder, "nano").ID, "the inbox on NATS is read again")
	_, dup, aside, _ := b.Counts()
	assert.Zero(t, dup+aside)
}
