package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// newTasks is the task store of gateway gw on a fresh memory store, with
// a clock the test moves.
func newTasks(t *testing.T, st *store.Store, keep int, now *time.Time) *tasks {
	t.Helper()
	tk, err := loadTasks(testkit.Ctx(t), st, "gw", keep, slog.New(slog.DiscardHandler), func() time.Time { return *now })
	require.NoError(t, err)
	return tk
}

// The task store keeps each fronted agent's tasks apart, versions them
// (a stale update is refused), lists them newest first a page at a time,
// reads them back after a restart, and deletes the oldest ended ones
// beyond its bound.
func TestTasks(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(memstore.New(memstore.Options{}), nil)
	now := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	tk := newTasks(t, st, 3, &now)
	coder, critic := agentTasks{t: tk, agent: "coder"}, agentTasks{t: tk, agent: "critic"}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("x"))
	var ids []a2a.TaskID
	for range 4 {
		task := a2a.NewSubmittedTask(a2a.TaskInfo{TaskID: a2a.NewTaskID()}, msg)
		v, err := coder.Create(ctx, task)
		require.NoError(t, err)
		assert.Equal(t, taskstore.TaskVersion(1), v)
		ids = append(ids, task.ID)
		now = now.Add(time.Minute)
	}
	_, err := coder.Create(ctx, &a2a.Task{ID: "Not A UUID"})
	assert.ErrorIs(t, err, a2a.ErrInvalidParams)
	_, err = critic.Get(ctx, ids[0])
	assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "another agent's task")

	got, err := coder.Get(ctx, ids[0])
	require.NoError(t, err)
	r, _ := tk.get(ids[0])
	assert.Equal(t, MailboxPrefix+string(ids[0]), r.Mailbox.TaskID)
	assert.Equal(t, msg.ID, r.Mailbox.Original)
	done := *got.Task
	done.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted}
	v, err := coder.Update(ctx, &taskstore.UpdateRequest{Task: &done, PrevVersion: got.Version})
	require.NoError(t, err)
	assert.Equal(t, taskstore.TaskVersion(2), v)
	_, err = coder.Update(ctx, &taskstore.UpdateRequest{Task: &done, PrevVersion: got.Version})
	assert.ErrorIs(t, err, taskstore.ErrConcurrentModification)

	page, err := coder.List(ctx, &a2a.ListTasksRequest{PageSize: 2})
	require.NoError(t, err)
	assert.Equal(t, 4, page.TotalSize)
	assert.Equal(t, []a2a.TaskID{ids[0], ids[3]}, []a2a.TaskID{page.Tasks[0].ID, page.Tasks[1].ID}, "the one changed last first")
	next, err := coder.List(ctx, &a2a.ListTasksRequest{PageSize: 2, PageToken: page.NextPageToken})
	require.NoError(t, err)
	assert.Len(t, next.Tasks, 2)
	assert.Empty(t, next.NextPageToken)
	_, err = coder.List(ctx, &a2a.ListTasksRequest{PageSize: 101})
	assert.ErrorIs(t, err, a2a.ErrInvalidRequest)
	_, err = coder.List(ctx, &a2a.ListTasksRequest{PageToken: "??"})
	assert.ErrorIs(t, err, a2a.ErrInvalidParams)
	ended, err := coder.List(ctx, &a2a.ListTasksRequest{Status: a2a.TaskStateCompleted})
	require.NoError(t, err)
	assert.Len(t, ended.Tasks, 1)

	again := newTasks(t, st, 3, &now)
	assert.Len(t, again.open(), 3, "read back")
	r2, ok := again.get(ids[0])
	require.True(t, ok)
	assert.Equal(t, int64(2), r2.Version)

	task := a2a.NewSubmittedTask(a2a.TaskInfo{TaskID: a2a.NewTaskID()}, msg)
	_, err = agentTasks{t: again, agent: "coder"}.Create(ctx, task)
	require.NoError(t, err)
	_, ok = again.get(ids[0])
	assert.False(t, ok, "the oldest ended task is deleted beyond keepTasks")
	keys, err := st.ListState(ctx, "gw", keyPrefix)
	require.NoError(t, err)
	assert.Len(t, keys, 4)
}

func TestParseDecision(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]struct {
		allow, ok bool
		reason    string
	}{
		"approve":        {true, true, ""},
		"Yes, go ahead":  {true, true, "go ahead"},
		"ok":             {true, true, ""},
		"deny too risky": {false, true, "too risky"},
		"No.":            {false, true, ""},
		"maybe later":    {false, false, ""},
		"":               {false, false, ""},
	} {
		allow, reason, ok := parseDecision(text)
		assert.Equal(t, want.allow, allow, text)
		assert.Equal(t, want.ok, ok, text)
		assert.Equal(t, want.reason, reason, text)
	}
}

func TestSmallerBudget(t *testing.T) {
	t.Parallel()
	b := func(tokens int64, cost float64) *envelope.Budget { return &envelope.Budget{Tokens: tokens, Cost: cost} }
	assert.Nil(t, smaller(nil, nil))
	assert.Equal(t, b(5, 0), smaller(nil, b(5, 0)))
	assert.Equal(t, b(5, 0), smaller(b(5, 0), nil))
	assert.Equal(t, b(5, 1), smaller(b(10, 1), b(5, 2)))
	assert.Equal(t, b(10, 1), smaller(b(10, 0), b(0, 1)))
}

// A feed hands its updates to one execution at a time, in order; one
// pushed while none takes them asks for a resumption once; an execution
// that ends leaves what it did not take for the next.
func TestFeeds(t *testing.T) {
	t.Parallel()
	resumed := make(chan a2a.TaskID, 4)
	fs := newFeeds(func(id a2a.TaskID) { resumed <- id })
	fs.push("t", update{id: "1"})
	fs.push("t", update{id: "2"})
	assert.Equal(t, a2a.TaskID("t"), testkit.Recv(t, resumed, "a resumption"))
	assert.Empty(t, resumed, "asked once")
	f := fs.attach("t")
	u, ok := fs.next(context.Background(), f)
	require.True(t, ok)
	assert.Equal(t, "1", u.id)
	fs.detach("t", []update{u})
	assert.Equal(t, a2a.TaskID("t"), testkit.Recv(t, resumed, "a resumption for what is left"))
	f = fs.attach("t")
	for _, want := range []string{"1", "2"} {
		u, _ := fs.next(context.Background(), f)
		assert.Equal(t, want, u.id)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, ok = fs.next(ctx, f)
	assert.False(t, ok)
	fs.detach("t", nil)
	assert.Empty(t, resumed)

	acked := 0
	fs.push("u", update{done: func() { acked++ }})
	<-resumed
	fs.drop("u")
	assert.Equal(t, 1, acked, "an ended task's updates are acknowledged")
}
