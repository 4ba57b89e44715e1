package store_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// plain is a backend with the primitives only: every optional ability of
// the memory store it wraps, and of its inboxes, is hidden.
type plain struct{ driver.Backend }

// plainInbox is an inbox with the primitives only.
type plainInbox struct{ driver.Inbox }

// OpenInbox implements driver.Backend.
func (p plain) OpenInbox(ctx context.Context, agent string) (driver.Inbox, error) {
	in, err := p.Backend.OpenInbox(ctx, agent)
	if err != nil {
		return nil, err
	}
	return plainInbox{in}, nil
}

// openFS opens a folder store in a fresh folder.
func openFS(t *testing.T) *fsstore.Store {
	t.Helper()
	s, err := fsstore.Open(fsstore.Options{Root: filepath.Join(t.TempDir(), "mb"), NoSync: true, AuditLog: true,
		PollInterval: time.Hour, IndexDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// Has says what each backend does itself, for the store and its inbox.
func TestHas(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	for _, tt := range []struct {
		name  string
		be    driver.Backend
		has   []store.Ability
		inbox []store.Ability
	}{
		{"folder", openFS(t), []store.Ability{store.CanBrowse, store.CanSkim, store.CanCount, store.CanListPending,
			store.CanFindInbox, store.CanWatch, store.CanAudit, store.CanReadAudit, store.CanDeadLetters,
			store.CanHeartbeat, store.CanPing, store.CanTakeTurns, store.CanLeaveCards}, []store.Ability{store.CanSweep, store.CanPrune, store.CanAckPipelined, store.CanPick}},
		{"memory", memstore.New(memstore.Options{}), []store.Ability{store.CanBrowse, store.CanAudit, store.CanReadAudit, store.CanNudge},
			[]store.Ability{store.CanSweep, store.CanPrune}},
		{"plain", plain{memstore.New(memstore.Options{})}, nil, nil},
	} {
		st := store.New(tt.be, nil)
		for _, a := range []store.Ability{store.CanBrowse, store.CanSkim, store.CanCount, store.CanListPending,
			store.CanFindInbox, store.CanWatch, store.CanAudit, store.CanReadAudit, store.CanDeadLetters,
			store.CanTrackPresence, store.CanHeartbeat, store.CanPing, store.CanTakeTurns, store.CanSweep, store.CanNudge,
			store.CanLeaveCards} {
			assert.Equal(t, slices.Contains(tt.has, a), st.Has(a), "%s: %s", tt.name, a)
		}
		in, err := st.OpenInbox(ctx, "bob")
		require.NoError(t, err)
		for _, a := range []store.Ability{store.CanSweep, store.CanPrune, store.CanAckPipelined, store.CanPick, store.CanBrowse} {
			assert.Equal(t, slices.Contains(tt.inbox, a), in.Has(a), "%s inbox: %s", tt.name, a)
		}
		require.NoError(t, in.Close())
	}
}

// What the store cannot do and cannot emulate fails with ErrNotSupported,
// naming what is missing; what it emulates works on the primitives alone
// (Ping reads the cards, AckPipelined acknowledges and calls back).
func TestNotSupportedAndPrimitives(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(plain{memstore.New(memstore.Options{})}, nil)
	m := storetest.NewMessage("alice", "bob", "hi")
	storetest.Deliver(t, st, m)
	in := storetest.OpenInbox(t, st, "bob")

	notSupported := func(what string, err error) {
		t.Helper()
		assert.ErrorIs(t, err, store.ErrNotSupported, what)
		assert.ErrorContains(t, err, "it cannot ", what)
	}
	notSupported("Browse", st.Browse(ctx, func(store.Stored) bool { return true }))
	notSupported("Skim", st.Skim(ctx, nil, func(store.Skimmed) bool { return true }))
	_, err := st.Fetch(ctx, store.Skimmed{Agent: "bob"})
	notSupported("Fetch", err)
	notSupported("Pending", st.Pending(ctx, "bob", func(string, *envelope.Message, error) bool { return true }))
	_, err = st.Depths(ctx, nil)
	notSupported("Depths", err)
	_, err = st.Depth(ctx, "bob")
	notSupported("Depth", err)
	_, err = st.InboxAgents()
	notSupported("InboxAgents", err)
	_, err = st.Backlog(ctx, "bob")
	notSupported("Backlog", err)
	notSupported("Watch", st.Watch(ctx, "", store.WatchFuncs{}))
	visible, err := st.LeaveCard(ctx, "bob", func(c *envelope.Card) { c.Status = envelope.StatusOffline })
	require.NoError(t, err, "LeaveCard is UpdateCard")
	assert.True(t, visible)
	card, err := st.Card(ctx, "bob")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, card.Status)
	notSupported("Record", st.Record(ctx, store.Event{Kind: store.EventOperator}))
	notSupported("ReadAudit", st.ReadAudit(ctx, func(store.Event) bool { return true }))
	_, err = st.SetAside(ctx, "bob")
	notSupported("SetAside", err)
	_, err = st.Redeliver(ctx, "bob", "1")
	notSupported("Redeliver", err)
	notSupported("Discard", st.Discard(ctx, "bob", "1"))
	_, err = st.Heartbeat(ctx, "bob", time.Now(), time.Minute)
	notSupported("Heartbeat", err)
	_, err = st.HasInbox("bob")
	notSupported("HasInbox", err)
	_, err = in.SweepTask(ctx, "t1")
	notSupported("SweepTask", err)
	_, err = in.Prune(ctx, store.Retention{})
	notSupported("Prune", err)

	require.NoError(t, st.Ping(ctx), "emulated by reading the cards")
	d := storetest.Next(t, in)
	durable := make(chan error, 1)
	require.NoError(t, in.AckPipelined(ctx, d, func(err error) { durable <- err }))
	require.NoError(t, <-durable, "an Ack is durable when it returns")
	last := storetest.NewMessage("alice", "bob", "last")
	storetest.Deliver(t, st, last)
	storetest.ExpectNext(t, in, last.ID) // the acknowledged one is not handed out again

	require.NoError(t, st.Close())
	assert.ErrorIs(t, st.Ping(ctx), store.ErrClosed)
}

// waiting delivers to bob three messages (one handed out and not
// acknowledged, one acknowledged, one pending) and to carol one; it
// returns the ids of bob's unhandled ones, oldest first, and carol's. Bob's
// inbox stays open, as a running receiver holds it.
func waiting(t *testing.T, st *store.Store) (bob []string, carol string) {
	t.Helper()
	t0 := time.Now().Add(-time.Hour)
	at := func(m *envelope.Message, d time.Duration) *envelope.Message {
		m.Timestamp = envelope.NewTime(t0.Add(d))
		return m
	}
	done, held, pending := at(storetest.NewMessage("alice", "bob", "done"), 0),
		at(storetest.NewMessage("alice", "bob", "held"), time.Minute), at(storetest.NewMessage("dave", "bob", "pending"), 2*time.Minute)
	forCarol := at(storetest.NewMessage("alice", "carol", "for carol"), 3*time.Minute)
	storetest.Deliver(t, st, done, held, pending, forCarol)
	in := storetest.OpenInbox(t, st, "bob")
	storetest.ExpectNext(t, in, done.ID)
	d := storetest.Next(t, in)
	require.Equal(t, held.ID, d.Message.ID)
	return []string{held.ID, pending.ID}, forCarol.ID
}

// On a backend that browses but keeps no index nor counts (memory), Skim,
// Fetch, Pending, Depths, Depth and Backlog are emulated through Browse:
// the messages not handled yet, pending or claimed, oldest first.
func TestEmulatedThroughBrowse(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(memstore.New(memstore.Options{}), nil)
	require.False(t, st.Has(store.CanSkim))
	bob, _ := waiting(t, st)

	var skimmed []store.Skimmed
	require.NoError(t, st.Skim(ctx, []string{"bob"}, func(s store.Skimmed) bool { skimmed = append(skimmed, s); return true }))
	require.Len(t, skimmed, 3, "bob's three messages, not carol's")
	for _, s := range skimmed {
		assert.Equal(t, "bob", s.Agent)
		require.NotNil(t, s.Message, "read whole, and handed over")
		assert.Equal(t, s.Message.ID, s.Summary.ID)
		got, err := st.Fetch(ctx, s)
		require.NoError(t, err)
		assert.Equal(t, s.Message, got.Message, "fetched without reading again")
		s.Message = nil
		got, err = st.Fetch(ctx, s)
		require.NoError(t, err, "found through Browse")
		assert.Equal(t, s.Summary.ID, got.Message.ID)
		assert.Equal(t, s.Box, got.Box)
	}
	calls := 0
	require.NoError(t, st.Skim(ctx, nil, func(store.Skimmed) bool { calls++; return false }))
	assert.Equal(t, 1, calls, "Skim stops when fn returns false")
	_, err := st.Fetch(ctx, store.Skimmed{Agent: "bob", Summary: store.Summary{ID: "gone"}})
	assert.ErrorIs(t, err, fs.ErrNotExist)

	var pending []string
	require.NoError(t, st.Pending(ctx, "bob", func(ref string, m *envelope.Message, err error) bool {
		assert.NoError(t, err)
		assert.NotEmpty(t, ref)
		pending = append(pending, m.ID)
		return true
	}))
	assert.Equal(t, bob, pending, "held and pending, oldest first")
	pending = nil
	require.NoError(t, st.Pending(ctx, "bob", func(_ string, m *envelope.Message, _ error) bool {
		pending = append(pending, m.ID)
		return false
	}))
	assert.Equal(t, bob[:1], pending, "Pending stops when fn returns false")

	depths, err := st.Depths(ctx, []string{"bob", "erin"})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"bob": 2, "carol": 1, "erin": 0}, depths)
	n, err := st.Depth(ctx, "carol")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	b, err := st.Backlog(ctx, "bob")
	require.NoError(t, err)
	assert.Equal(t, 2, b.Depth)
}

// On the folder store, Depths and Pending are the store's own: pending
// messages only (a claimed one is the receiver's), and agents with an
// inbox but no card are counted.
func TestDepthsOfTheFolderStore(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(openFS(t), nil)
	require.True(t, st.Has(store.CanCount))
	bob, _ := waiting(t, st)
	depths, err := st.Depths(ctx, []string{"erin"})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"bob": 1, "carol": 1, "erin": 0}, depths)
	agents, err := st.InboxAgents()
	require.NoError(t, err)
	assert.Equal(t, []string{"bob", "carol"}, agents)
	var pending []string
	require.NoError(t, st.Pending(ctx, "bob", func(_ string, m *envelope.Message, _ error) bool {
		pending = append(pending, m.ID)
		return true
	}))
	assert.Equal(t, bob[1:], pending, "the claimed one is not pending in the folder")
	found, err := st.HasInbox("carol")
	require.NoError(t, err)
	assert.True(t, found)
	found, err = st.HasInbox("erin")
	require.NoError(t, err)
	assert.False(t, found)
}

// tracked is a backend that tracks presence apart from its cards, as NATS
// does with expiring keys: online lists who is online.
type tracked struct {
	driver.Backend
	online []store.Presence
}

// Online implements driver.PresenceLister.
func (b tracked) Online(context.Context) ([]store.Presence, error) { return b.online, nil }

// Presence follows the cards' heartbeats on a store that does not track
// it, and the backend's tracking on one that does: an agent without an
// entry is offline, one with an entry is idle or busy as the entry, else
// its card, says.
func TestPresence(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	mem := memstore.New(memstore.Options{})
	card := func(id string, beat time.Duration, status envelope.Status, tasks ...string) {
		_, err := mem.UpdateCard(ctx, id, func(c *envelope.Card) {
			c.Status, c.CurrentTasks = status, tasks
			c.RegisteredAt = envelope.NewTime(now.Add(-time.Hour))
			c.LastHeartbeat = envelope.NewTime(now.Add(beat))
		})
		require.NoError(t, err)
	}
	card("fresh", -time.Second, envelope.StatusIdle)
	card("busy", -time.Second, envelope.StatusBusy, "t1")
	card("stale", -time.Hour, envelope.StatusIdle)
	card("stopped", -time.Second, envelope.StatusOffline)

	got, err := store.New(mem, nil).Presence(ctx, now, 30*time.Second)
	require.NoError(t, err)
	status := func(got map[string]store.Presence) map[string]envelope.Status {
		out := map[string]envelope.Status{}
		for id, p := range got {
			assert.Equal(t, id, p.Agent)
			assert.Equal(t, p.Status != envelope.StatusOffline, p.Online, "%s", id)
			out[id] = p.Status
		}
		return out
	}
	assert.Equal(t, map[string]envelope.Status{"fresh": envelope.StatusIdle, "busy": envelope.StatusBusy,
		"stale": envelope.StatusOffline, "stopped": envelope.StatusOffline}, status(got), "as the cards say")

	st := store.New(tracked{Backend: mem, online: []store.Presence{
		{Agent: "stale", Online: true, Status: envelope.StatusBusy},
		{Agent: "busy", Online: true},
		{Agent: "unregistered", Online: true, Status: envelope.StatusIdle},
	}}, nil)
	require.True(t, st.Has(store.CanTrackPresence))
	got, err = st.Presence(ctx, now, 30*time.Second)
	require.NoError(t, err)
	assert.Equal(t, map[string]envelope.Status{"fresh": envelope.StatusOffline, "busy": envelope.StatusBusy,
		"stale": envelope.StatusBusy, "stopped": envelope.StatusOffline, "unregistered": envelope.StatusIdle},
		status(got), "as the backend tracks it")
}

// SetAside of every agent lists what the inboxes of registered agents and
// of agents with an inbox but no card set aside, oldest first; Redeliver
// puts a copy back and returns the original.
func TestSetAsideOfEveryAgent(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(openFS(t), nil)
	_, err := st.UpdateCard(ctx, "bob", func(*envelope.Card) {})
	require.NoError(t, err)
	refuse := func(agent string) *envelope.Message {
		m := storetest.NewMessage("mallory", agent, "let me in")
		storetest.Deliver(t, st, m)
		in, err := st.OpenInbox(ctx, agent)
		require.NoError(t, err)
		defer in.Close()
		d := storetest.Next(t, in)
		require.NoError(t, in.Quarantine(ctx, d, "sender not allowed"))
		return m
	}
	first, second := refuse("bob"), refuse("carol") // carol has no card
	agents, err := st.SetAsideAgents(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"bob", "carol"}, agents)
	all, err := st.SetAside(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, first.ID, all[0].Message.ID, "oldest first")
	assert.Equal(t, second.ID, all[1].Message.ID)

	orig, err := st.Redeliver(ctx, "carol", all[1].Ref)
	require.NoError(t, err)
	assert.Equal(t, second.ID, orig.ID)
	in := storetest.OpenInbox(t, st, "carol")
	d := storetest.Next(t, in)
	assert.NotEqual(t, second.ID, d.Message.ID, "a copy, under a fresh id")
	assert.Equal(t, second.ID, d.Message.Metadata[store.MetaRedeliveredFrom])
	_, err = st.Redeliver(ctx, "carol", all[1].Ref)
	assert.ErrorIs(t, err, store.ErrNotSetAside, "redelivered once")
	_, err = st.Redeliver(ctx, "bob", all[1].Ref)
	assert.ErrorIs(t, err, store.ErrNotSetAside, "another agent's")
}

// Settle handles a message out of turn for an agent that does not run:
// pending, or left claimed by an owner that is gone. While the agent's
// inbox is open it fails with ErrInboxBusy; a store whose inboxes cannot
// hand out a message out of turn fails with ErrNotSupported.
func TestSettle(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(openFS(t), nil)
	first, second, third := storetest.NewMessage("alice", "bob", "one"), storetest.NewMessage("alice", "bob", "two"),
		storetest.NewMessage("alice", "bob", "three")
	storetest.Deliver(t, st, first, second, third)
	refs := map[string]string{}
	boxes := func() map[string]store.Box {
		out := map[string]store.Box{}
		require.NoError(t, st.Browse(ctx, func(s store.Stored) bool {
			out[s.Message.ID], refs[s.Message.ID] = s.Box, s.Ref
			return true
		}))
		return out
	}
	boxes()
	in, err := st.OpenInbox(ctx, "bob")
	require.NoError(t, err)
	require.Equal(t, first.ID, storetest.Next(t, in).Message.ID) // claimed, never acknowledged
	assert.ErrorIs(t, st.Settle(ctx, "bob", refs[second.ID]), store.ErrInboxBusy, "bob's process holds its inbox")
	require.NoError(t, in.Close())

	require.NoError(t, st.Settle(ctx, "bob", refs[second.ID]))
	require.NoError(t, st.Settle(ctx, "bob", refs[first.ID]))
	assert.Equal(t, map[string]store.Box{first.ID: store.BoxProcessed, second.ID: store.BoxProcessed, third.ID: store.BoxInbox}, boxes())
	assert.ErrorIs(t, st.Settle(ctx, "bob", refs[second.ID]), fs.ErrNotExist, "handled already")
	assert.ErrorIs(t, st.Settle(ctx, "carol", refs[third.ID]), fs.ErrNotExist, "not carol's")
	in = storetest.OpenInbox(t, st, "bob")
	storetest.ExpectNext(t, in, third.ID) // the others are not handed out again

	mem := store.New(memstore.New(memstore.Options{}), nil)
	storetest.Deliver(t, mem, storetest.NewMessage("alice", "bob", "x"))
	assert.ErrorIs(t, mem.Settle(ctx, "bob", "bob/1"), store.ErrNotSupported)
}
