package mailbox_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// convStore opens a filesystem store on a fresh root.
func convStore(t *testing.T) *fsstore.Store {
	t.Helper()
	s, err := fsstore.Open(fsstore.Options{Root: filepath.Join(t.TempDir(), "mb"), NoSync: true, PollInterval: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// convCompose composes a message from `from` at `at`, as a reply to orig
// when given, failing the test on error.
func convCompose(t *testing.T, from string, req route.Request, at time.Time, orig *envelope.Message) *envelope.Message {
	t.Helper()
	opts := route.ComposeOptions{Now: at}
	if orig != nil {
		m := meta.FromMessage(orig, false)
		opts.Original = &m
	}
	msg, err := route.Compose(from, req, opts)
	require.NoError(t, err)
	return msg
}

// convTake delivers m and claims it from its recipient's inbox, which
// the test then owns.
func convTake(t *testing.T, s *fsstore.Store, m *envelope.Message) (driver.Inbox, *store.Delivery) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, s.Deliver(ctx, m))
	in, err := s.OpenInbox(ctx, m.To)
	require.NoError(t, err)
	t.Cleanup(func() { in.Close() })
	wait, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	d, err := in.Next(wait)
	require.NoError(t, err)
	require.Equal(t, m.ID, d.Message.ID)
	return in, d
}

// A thread spread over processed/, archive/, claimed/ and inbox/ of two
// agents reads back whole, in causal order even where a clock was behind,
// with each message once.
func TestThreadSpreadOverTheTree(t *testing.T) {
	s := convStore(t)
	ctx := context.Background()
	m1 := convCompose(t, "critic", route.Request{To: "executor", Text: "why delete it?", Subject: "dead-code", ExpectsReply: true}, convT0, nil)
	in1, d1 := convTake(t, s, m1)
	require.NoError(t, in1.Ack(ctx, d1)) // executor/processed
	require.NoError(t, in1.Close())

	m2 := convCompose(t, "executor", route.Request{To: "critic", Text: "unused"}, convT0.Add(time.Minute), m1)
	in2, d2 := convTake(t, s, m2)
	require.NoError(t, in2.Ack(ctx, d2))
	require.NoError(t, in2.Close())
	// critic/processed → critic/archive/by-task/task_1 (as a task sweep leaves it)
	name := filepath.Base(processedRef(t, s, "critic", m2.ID))
	archived := filepath.Join(s.Root(), "critic", "archive", "by-task", "task_1")
	require.NoError(t, os.MkdirAll(archived, 0o700))
	require.NoError(t, os.Rename(filepath.Join(s.Root(), "critic", "processed", name), filepath.Join(archived, name)))

	m3 := convCompose(t, "critic", route.Request{To: "executor", Text: "sure?", ExpectsReply: true}, convT0.Add(2*time.Minute), m2)
	convTake(t, s, m3) // executor/claimed
	// executor's clock is behind: its answer carries an earlier timestamp.
	m4 := convCompose(t, "executor", route.Request{To: "critic", Text: "yes"}, convT0.Add(90*time.Second), m3)
	require.NoError(t, s.Deliver(ctx, m4)) // critic/inbox

	other := convCompose(t, "critic", route.Request{To: "executor", Text: "unrelated"}, convT0.Add(30*time.Second), nil)
	require.NoError(t, s.Deliver(ctx, other))
	// A duplicate copy of m1 in processed/ (a retried delivery).
	dup := filepath.Join(s.Root(), "executor", "processed", "x_dup.msg.json")
	data, err := envelope.Encode(m1)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dup, data, 0o600))

	for _, id := range []string{m1.ID, m2.ID, m3.ID, m4.ID} {
		chain, err := view.Thread(ctx, store.New(s, nil), id)
		require.NoError(t, err)
		var ids []string
		var boxes []store.Box
		var depths []int
		for _, e := range chain {
			ids, boxes, depths = append(ids, e.Message.ID), append(boxes, e.Box), append(depths, e.Depth)
		}
		assert.Equal(t, []string{m1.ID, m2.ID, m3.ID, m4.ID}, ids, "from %s", id)
		assert.Equal(t, []store.Box{store.BoxProcessed, store.BoxArchive, store.BoxClaimed, store.BoxInbox}, boxes)
		assert.Equal(t, []int{0, 1, 2, 3}, depths)
		assert.Equal(t, "critic", chain[1].Agent)
	}

	_, err = view.Thread(ctx, store.New(s, nil), "nope")
	assert.ErrorIs(t, err, view.ErrNotFound)
}

// Messages joined by thread id alone (a broadcast's copies, a message sent
// into the thread) belong to it too.
func TestThreadJoinsByThreadID(t *testing.T) {
	s := convStore(t)
	ctx := context.Background()
	a := convCompose(t, "lead", route.Request{To: "coder-1", Text: "standup"}, convT0, nil)
	b := convCompose(t, "lead", route.Request{To: "coder-2", Text: "standup", ThreadID: a.ID}, convT0, nil)
	c := convCompose(t, "coder-2", route.Request{To: "lead", Text: "done"}, convT0.Add(time.Second), b)
	for _, m := range []*envelope.Message{a, b, c} {
		require.NoError(t, s.Deliver(ctx, m))
	}
	chain, err := view.Thread(ctx, store.New(s, nil), c.ID)
	require.NoError(t, err)
	require.Len(t, chain, 3)
	assert.Equal(t, []int{0, 0, 1}, []int{chain[0].Depth, chain[1].Depth, chain[2].Depth})
	assert.Equal(t, c.ID, chain[2].Message.ID)
}

// processedRef returns the path of message id in agent's processed/.
func processedRef(t *testing.T, s *fsstore.Store, agent, id string) string {
	t.Helper()
	var ref string
	require.NoError(t, s.Browse(context.Background(), func(st store.Stored) bool {
		if st.Agent == agent && st.Box == store.BoxProcessed && st.Message.ID == id {
			ref = st.Ref
			return false
		}
		return true
	}))
	require.NotEmpty(t, ref)
	return ref
}
