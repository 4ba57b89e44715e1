package a2a_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// askingWorker asks for a person's approval of each task as the agent
// loop's gate does (a record in the approval book naming the task), and
// does the task once release is closed.
func askingWorker(t *testing.T, root string, release <-chan struct{}) *worker {
	var w *worker
	w = startWorker(t, root, "coder", nil, nil, func(ctx context.Context, mt meta.Meta) (envelope.TaskState, string, string) {
		now := time.Now()
		a := agent.Approval{ID: "0196a2a0-0000-7000-8000-" + mt.Task.ID[len(mt.Task.ID)-12:], Agent: "coder", Kind: "task",
			Action: "work on a task from a2a", Detail: "deploy", TaskID: mt.Task.ID, Created: now, Deadline: now.Add(time.Hour)}
		if err := w.ch.Backend().Approvals().PutApproval(ctx, a); err != nil {
			return envelope.StateFailed, "", err.Error()
		}
		select {
		case <-release:
		case <-ctx.Done():
			return "", "", ""
		}
		got, err := w.ch.Backend().Approvals().GetApproval(ctx, a.ID)
		if err != nil || got.Decision == nil || !got.Decision.Allow {
			return envelope.StateFailed, "", "not approved"
		}
		return envelope.StateCompleted, "deployed", ""
	})
	return w
}

// A task whose agent waits for an approval is input-required, saying what
// waits; with clientApproves the client's "approve" decides it (recorded
// as the A2A client's decision) and the task goes on to completed.
func TestServeApprovalIsInputRequired(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	release := make(chan struct{})
	w := askingWorker(t, root, release)
	cfg := serveConfig("coder")
	cfg.ClientApproves = true
	g := startGateway(t, root, cfg)
	c := newClient(t, "http://"+g.Addr()+"/agents/coder")

	events := stream(t, c, userMessage("deploy"))
	require.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired}, states(events))
	last := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
	question := last.Status.Message.Parts[0].Text()
	assert.Contains(t, question, "coder waits for a person's approval to work on a task from a2a (deploy)")
	assert.Contains(t, question, `Answer "approve" or "deny"`)
	id := last.TaskID

	answer := &a2a.SendMessageRequest{Message: a2a.NewMessageForTask(a2a.MessageRoleUser, last, a2a.NewTextPart("approve, go ahead"))}
	ctx := testkit.Ctx(t)
	var got []a2a.TaskState
	released := false
	for ev, err := range c.SendStreamingMessage(ctx, answer) {
		require.NoError(t, err)
		got = append(got, states([]a2a.Event{ev})...)
		if len(got) == 1 && !released {
			released = true
			mt := w.tasks.WaitFor(t, "the task", func(meta.Meta) bool { return true })
			list, err := w.ch.Backend().Approvals().ListApprovals(ctx)
			require.NoError(t, err)
			require.Len(t, list, 1)
			require.NotNil(t, list[0].Decision, "decided before the task goes on")
			assert.True(t, list[0].Decision.Allow)
			assert.Equal(t, "a2a client a2a-client", list[0].Decision.By)
			assert.Equal(t, mt.Task.ID, list[0].TaskID)
			close(release)
		}
	}
	assert.Equal(t, []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted}, got)
	task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	require.NoError(t, err)
	assert.Equal(t, "deployed", task.Artifacts[0].Parts[0].Text())
}

// Without clientApproves the client is told that an operator decides.
func TestServeApprovalByOperatorOnly(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	release := make(chan struct{})
	defer close(release)
	askingWorker(t, root, release)
	g := startGateway(t, root, serveConfig("coder"))
	c := newClient(t, "http://"+g.Addr()+"/agents/coder")
	events := stream(t, c, userMessage("deploy"))
	last := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
	require.Equal(t, a2a.TaskStateInputRequired, last.Status.State)
	assert.Contains(t, last.Status.Message.Parts[0].Text(), "An operator decides it: switchboard approvals approve|deny")

	answer := &a2a.SendMessageRequest{Message: a2a.NewMessageForTask(a2a.MessageRoleUser, last, a2a.NewTextPart("approve"))}
	res, err := c.SendMessage(testkit.Ctx(t), answer)
	require.NoError(t, err)
	task := res.(*a2a.Task)
	assert.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	assert.Contains(t, task.Status.Message.Parts[0].Text(), "an A2A client cannot give it")
}
