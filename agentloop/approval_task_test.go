package agentloop_test

import (
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestTaskApproval: a delegated task whose text names an entry of
// approval.tasks waits before any work (the model is not asked), listed
// in the book with the task's own text; denied, it fails with "not
// approved: ..."; approved, it is done; timed out, it fails with the
// timeout; a task that names no entry, or a plain message, runs at once.
func TestTaskApproval(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now())
	book := newMemBook()
	rec := &recorder{next: scripted.New()}
	audit := newAuditBook(book)
	s := start(t, agentloop.Config{Provider: rec, AgentID: "coder",
		Approval: agentloop.ApprovalConfig{Tasks: []string{"Sorting", "release"}, Timeout: time.Minute, Clock: clk, Book: audit}})
	ctx := testkit.Ctx(t)

	// waiting returns the approval of the task with text, once the gate
	// waits for it (its deadline and its look at the book are on the clock).
	waiting := func(text string) agent.Approval {
		t.Helper()
		for {
			armed := clk.Armed()
			if clk.Waiters() == 2 {
				break
			}
			testkit.Closed(t, armed, "the gate's timers")
		}
		list, err := book.ListApprovals(ctx)
		require.NoError(t, err)
		require.Len(t, list, 1)
		require.Equal(t, text, list[0].Detail, "the task's own text")
		return list[0]
	}
	failure := func(what string) string {
		t.Helper()
		out := s.recv(t)
		require.NotEmpty(t, out.Failure, what+": a failed task")
		assert.Equal(t, "could not complete the task: "+out.Failure, out.Content, what)
		return out.Failure
	}

	s.send(t, fromAgent("lead", bus.NoteTask, "sort 5 3 9 1", "task_1"))
	a := waiting("sort 5 3 9 1") // "Sorting" matches by its stem, as the judgement does
	assert.Equal(t, agentloop.ApprovalTask, a.Kind)
	assert.Equal(t, "work on a task from lead", a.Action)
	assert.Equal(t, "task_1", a.TaskID)
	assert.Empty(t, a.Channel, "a task from another agent is asked in no chat")
	assert.Empty(t, rec.requests(), "no work before the decision")
	_, err := book.DecideApproval(ctx, a.ID, agent.Decision{By: agent.Operator, Reason: "not today", Time: clk.Now()})
	require.NoError(t, err)
	clk.Add(time.Second)
	assert.Equal(t, "not approved: denied by operator: not today", failure("denied"))
	assert.Empty(t, rec.requests(), "denied: the model never saw it")

	s.send(t, fromAgent("lead", bus.NoteTask, "sort 4 2", "task_2"))
	a = waiting("sort 4 2")
	_, err = book.DecideApproval(ctx, a.ID, agent.Decision{Allow: true, By: agent.Operator, Time: clk.Now()})
	require.NoError(t, err)
	clk.Add(time.Second)
	assert.Equal(t, "2 4", s.recv(t).Content)

	s.send(t, fromAgent("lead", bus.NoteTask, "ship the release notes", "task_3"))
	waiting("ship the release notes")
	clk.Add(time.Minute)
	assert.Equal(t, "not approved: no one answered within 1m0s", failure("timed out"))

	s.send(t, fromAgent("lead", bus.NoteTask, "count words in a b c", "task_4"))
	assert.Equal(t, "3", s.recv(t).Content, "a task that names no entry runs at once")
	s.send(t, fromAgent("lead", bus.NoteMessage, "sort 3 1", ""))
	assert.Equal(t, "1 3", s.recv(t).Content, "a plain message is no task")

	assert.Equal(t, []string{
		"asked: work on a task from lead (sort 5 3 9 1)",
		"asked: work on a task from lead (sort 4 2)",
		"asked: work on a task from lead (ship the release notes)",
		"denied by timeout: work on a task from lead (ship the release notes): no answer within 1m0s",
	}, audit.recorded(), "the operator's decisions are recorded where they are made, not here")
}
