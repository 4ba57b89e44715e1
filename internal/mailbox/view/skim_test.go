package view_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
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
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// browseOnly is a backend without the Skimmer of the folder store: the
// views read it whole.
type browseOnly struct {
	driver.Backend
	b driver.Browser
}

// Browse implements driver.Browser.
func (o browseOnly) Browse(ctx context.Context, fn func(store.Stored) bool) error {
	return o.b.Browse(ctx, fn)
}

// writeMsg writes m as a file of box (a folder under the agent) of its
// recipient's mailbox.
func writeMsg(t *testing.T, root, box string, m *envelope.Message) {
	t.Helper()
	dir := filepath.Join(root, m.To, box)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	data, err := envelope.Encode(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, m.ID+envelope.MessageSuffix), data, 0o600))
}

// conversationTree writes conversations between a few agents into every
// kind of folder: requests answered or not, tasks ended or not, threads,
// notes, a copy of a message in two folders, an archived request. It
// returns the ids of the messages and of the tasks.
func conversationTree(t *testing.T, root string) (ids, tasks []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	agents := []string{"ann", "bob", "cat", "dan"}
	at := convT0
	boxes := []string{"inbox", "claimed", "processed"}
	n := 0
	msg := func(from, to string, mod func(*envelope.Message)) *envelope.Message {
		n++
		at = at.Add(time.Duration(rng.IntN(90)) * time.Second) // some share a time
		m := &envelope.Message{ID: fmt.Sprintf("m%03d", n), From: from, To: to, Type: envelope.TypeMessage,
			Timestamp: envelope.NewTime(at), Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("hi")}}}
		mod(m)
		ids = append(ids, m.ID)
		return m
	}
	for c := range 40 {
		a, b := agents[rng.IntN(4)], agents[rng.IntN(4)]
		if a == b {
			b = agents[(rng.IntN(3)+1+c)%4]
		}
		thread := ""
		if c%3 == 0 {
			thread = fmt.Sprintf("th%d", c/6) // threads shared by two conversations
		}
		switch c % 4 {
		case 0, 1: // a request, answered (or not), then a note in the thread
			q := msg(a, b, func(m *envelope.Message) {
				m.ExpectsReply, m.ThreadID, m.Subject = true, thread, fmt.Sprintf("subject-%d", c)
				if c%8 == 1 {
					due := envelope.NewTime(at.Add(time.Minute))
					m.ReplyBy = &due
				}
			})
			writeMsg(t, root, boxes[rng.IntN(3)], q)
			if c%5 != 0 {
				r := msg(b, a, func(m *envelope.Message) { m.ReplyTo, m.ThreadID = q.ID, thread })
				writeMsg(t, root, boxes[rng.IntN(3)], r)
				writeMsg(t, root, "processed", msg(a, b, func(m *envelope.Message) { m.ReplyTo = r.ID }))
			}
			if c%7 == 0 { // a copy left in the inbox by a move cut short
				writeMsg(t, root, "inbox", q)
			}
		case 2: // a task, ended or not, or archived
			id := fmt.Sprintf("task-%d", c)
			tasks = append(tasks, id)
			deadline := envelope.NewTime(at.Add(time.Hour))
			task := msg(a, b, func(m *envelope.Message) {
				m.Type, m.Task, m.ThreadID = envelope.TypeTask, &envelope.Task{ID: id, State: envelope.StatePending, Deadline: &deadline}, thread
			})
			box := boxes[rng.IntN(3)]
			if c%10 == 6 {
				box = filepath.Join("archive", "by-task", id)
			}
			writeMsg(t, root, box, task)
			if c%3 != 0 {
				writeMsg(t, root, "processed", msg(b, a, func(m *envelope.Message) {
					m.Type, m.ReplyTo, m.Task = envelope.TypeTaskUpdate, task.ID, &envelope.Task{ID: id, State: envelope.StateCompleted}
				}))
			}
			writeMsg(t, root, "inbox", msg(a, b, func(m *envelope.Message) { m.TaskID = id }))
		default: // a note, in a thread or not
			writeMsg(t, root, boxes[rng.IntN(3)], msg(a, b, func(m *envelope.Message) { m.ThreadID = thread }))
		}
	}
	return ids, tasks
}

// threadRows is a thread as compared: each member's file, box, depth and
// id.
func threadRows(chain []view.ThreadEntry, err error) []string {
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	out := make([]string, len(chain))
	for i, e := range chain {
		out[i] = fmt.Sprintf("%s %s %d %s", e.Ref, e.Box, e.Depth, e.Message.ID)
	}
	return out
}

// pendingRows is a list of pending replies as compared: each as JSON,
// with where it is.
func pendingRows(t *testing.T, list []view.StoredPending) []string {
	t.Helper()
	out := make([]string, len(list))
	for i, p := range list {
		data, err := json.Marshal(p)
		require.NoError(t, err)
		out[i] = fmt.Sprintf("%s %s %s", data, p.Where.Ref, p.Where.Box)
	}
	return out
}

// The views give on a skimmed store (from its index, cold and warm)
// what they give reading every message whole.
func TestViewsSkimmedAsRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ids, tasks := conversationTree(t, root)
	s, err := fsstore.Open(fsstore.Options{Root: root, IndexDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	whole := store.New(browseOnly{Backend: s, b: s}, nil)
	require.False(t, whole.Has(store.CanSkim), "read whole")
	skimmed := store.New(s, nil)
	ctx := context.Background()
	now := convT0.Add(30 * time.Minute)
	filters := []view.PendingFilter{{Now: now}, {Now: now, ReplyTimeout: time.Minute}, {Now: now, Agent: "bob"},
		{Now: now, TaskID: "task-18"}, {Now: now, ReplyTimeout: 10 * time.Minute, OverdueOnly: true}}
	for round := range 2 { // the first builds the index, the second reads it
		for _, id := range append(append(ids, tasks...), "nope") {
			assert.Equal(t, threadRows(view.Thread(ctx, whole, id)), threadRows(view.Thread(ctx, skimmed, id)), "round %d thread %s", round, id)
		}
		for _, id := range append(tasks, "nope", ids[0]) {
			assert.Equal(t, threadRows(view.TaskThread(ctx, whole, id)), threadRows(view.TaskThread(ctx, skimmed, id)), "round %d task %s", round, id)
		}
		for _, f := range filters {
			want, err := view.FindPending(ctx, whole, f)
			require.NoError(t, err)
			got, err := view.FindPending(ctx, skimmed, f)
			require.NoError(t, err)
			require.NotEmpty(t, want, "%+v", f)
			assert.Equal(t, pendingRows(t, want), pendingRows(t, got), "round %d pending %+v", round, f)
			for _, p := range got {
				assert.Nil(t, p.Where.Message, "skimmed, not read")
			}
		}
	}
}
