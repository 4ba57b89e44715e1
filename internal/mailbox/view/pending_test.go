package view_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

func convStored(box store.Box, m *envelope.Message) store.Stored {
	return store.Stored{Message: m, Agent: m.To, Box: box, Ref: m.To + "/" + string(box) + "/" + m.ID + ".msg.json"}
}

func convMsg(id, from, to string, at time.Duration, mod func(*envelope.Message)) *envelope.Message {
	m := &envelope.Message{ID: id, From: from, To: to, Type: envelope.TypeMessage, Timestamp: envelope.NewTime(convT0.Add(at))}
	if mod != nil {
		mod(m)
	}
	return m
}

func TestPendingOf(t *testing.T) {
	due := envelope.NewTime(convT0.Add(10 * time.Minute))
	ask := func(m *envelope.Message) { m.ExpectsReply = true }
	all := []store.Stored{
		// answered: q1 ← a1
		convStored(store.BoxProcessed, convMsg("q1", "critic", "executor", 0, ask)),
		convStored(store.BoxInbox, convMsg("a1", "executor", "critic", time.Minute, func(m *envelope.Message) { m.ReplyTo = "q1" })),
		// unanswered, held by its receiver, due by reply_by, in task t1
		convStored(store.BoxClaimed, convMsg("q2", "critic", "executor", 2*time.Minute, func(m *envelope.Message) {
			m.ExpectsReply, m.ReplyBy, m.TaskID = true, &due, "t1"
		})),
		// unanswered, not read yet; a reply from someone else does not count
		convStored(store.BoxInbox, convMsg("q3", "planner", "critic", 3*time.Minute, ask)),
		convStored(store.BoxInbox, convMsg("x3", "executor", "planner", 4*time.Minute, func(m *envelope.Message) { m.ReplyTo = "q3" })),
		// swept with its task: no longer pending
		convStored(store.BoxArchive, convMsg("q4", "critic", "executor", 0, ask)),
		// a notice owes nothing
		convStored(store.BoxInbox, convMsg("n1", "critic", "executor", 0, nil)),
		// a task, accepted but not finished; another completed
		convStored(store.BoxClaimed, convMsg("t-req", "lead", "coder", 0, func(m *envelope.Message) {
			m.Type, m.Task = envelope.TypeTask, &envelope.Task{ID: "t2", State: envelope.StatePending}
		})),
		convStored(store.BoxProcessed, convMsg("t-acc", "coder", "lead", time.Second, func(m *envelope.Message) {
			m.Type, m.Task, m.ReplyTo = envelope.TypeTaskUpdate, &envelope.Task{ID: "t2", State: envelope.StateAccepted}, "t-req"
		})),
		convStored(store.BoxProcessed, convMsg("t3-req", "lead", "coder", 0, func(m *envelope.Message) {
			m.Type, m.Task = envelope.TypeTask, &envelope.Task{ID: "t3", State: envelope.StatePending}
		})),
		convStored(store.BoxInbox, convMsg("t3-done", "coder", "lead", time.Minute, func(m *envelope.Message) {
			m.Type, m.Task = envelope.TypeTaskUpdate, &envelope.Task{ID: "t3", State: envelope.StateCompleted}
		})),
	}
	ids := func(ps []view.StoredPending) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.MessageID)
		}
		return out
	}
	now := convT0.Add(30 * time.Minute)
	got := view.PendingOf(all, view.PendingFilter{Now: now, ReplyTimeout: time.Hour})
	assert.Equal(t, []string{"t-req", "q2", "q3"}, ids(got), "oldest first")
	assert.True(t, got[1].Overdue, "past its reply_by")
	assert.False(t, got[2].Overdue, "within replyTimeout")
	assert.Equal(t, store.BoxClaimed, got[1].Where.Box)
	assert.Equal(t, "executor", got[1].To)

	assert.Equal(t, []string{"q2"}, ids(view.PendingOf(all, view.PendingFilter{Now: now, TaskID: "t1"})))
	assert.Equal(t, []string{"t-req"}, ids(view.PendingOf(all, view.PendingFilter{Now: now, Agent: "coder"})))
	assert.Equal(t, []string{"q2", "q3"}, ids(view.PendingOf(all, view.PendingFilter{Now: now, Agent: "critic"})))
	assert.Equal(t, []string{"q2"}, ids(view.PendingOf(all, view.PendingFilter{Now: now, OverdueOnly: true})))
	assert.Equal(t, []string{"t-req", "q2", "q3"}, ids(view.PendingOf(all, view.PendingFilter{Now: convT0.Add(2 * time.Hour),
		ReplyTimeout: time.Hour, OverdueOnly: true})))
}

// convT0 is the time the conversation tests start at.
var convT0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
