package view_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

func TestThreadOfSurvivesReplyCycles(t *testing.T) {
	mk := func(id, replyTo string, at time.Duration) store.Stored {
		return store.Stored{Ref: id, Message: &envelope.Message{ID: id, From: "a", To: "b", ReplyTo: replyTo,
			Timestamp: envelope.NewTime(convT0.Add(at))}}
	}
	chain := view.ThreadOf([]store.Stored{mk("x", "y", 0), mk("y", "x", time.Second), mk("z", "", 0)}, "x")
	require.Len(t, chain, 2)
	assert.Equal(t, "x", chain[0].Message.ID)
	assert.Equal(t, "y", chain[1].Message.ID)
}

func TestThreadOfTask(t *testing.T) {
	t.Parallel()
	mk := func(id, typ, task, replyTo string, at time.Duration) store.Stored {
		m := &envelope.Message{ID: id, From: "a", To: "b", Type: envelope.Type(typ), ReplyTo: replyTo,
			Timestamp: envelope.NewTime(convT0.Add(at))}
		if typ != "message" {
			m.Task = &envelope.Task{ID: task, State: envelope.StatePending}
		} else {
			m.TaskID = task
		}
		return store.Stored{Ref: id, Message: m}
	}
	all := []store.Stored{
		mk("note", "message", "t1", "", 0), mk("req", "task", "t1", "", time.Second),
		mk("done", "task_update", "t1", "req", 2*time.Second), mk("other", "task", "t2", "", 0),
	}
	chain := ThreadOfTaskIDs(all, "t1")
	assert.Equal(t, []string{"req", "done"}, chain, "the thread of the task's request")
	assert.Empty(t, view.ThreadOfTask(all, "t9"))
	only := []store.Stored{mk("note", "message", "t3", "", 0)}
	assert.Equal(t, []string{"note"}, ThreadOfTaskIDs(only, "t3"), "without the request: a message of the task")
}

// ThreadOfTaskIDs returns the ids of view.ThreadOfTask.
func ThreadOfTaskIDs(all []store.Stored, taskID string) []string {
	var ids []string
	for _, e := range view.ThreadOfTask(all, taskID) {
		ids = append(ids, e.Message.ID)
	}
	return ids
}
