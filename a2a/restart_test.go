package a2a_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	a2agw "github.com/switchboard-dev/switchboard/a2a"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A gateway stopped while its tasks run finds them as they were when it
// starts again: the result that arrived while it was down completes its
// task, and the task still running streams to its end; the agent got
// each task once.
func TestServeResumesAfterRestart(t *testing.T) {
	t.Parallel()
	t.Run("folder", func(t *testing.T) { t.Parallel(); serveResumesAfterRestart(t, t.TempDir()) })
	t.Run("nats", func(t *testing.T) { t.Parallel(); serveResumesAfterRestart(t, natsTeam(t)) })
}

func serveResumesAfterRestart(t *testing.T, root string) {
	release := map[string]chan struct{}{"first": make(chan struct{}), "second": make(chan struct{})}
	w := startWorker(t, root, "coder", nil, nil, func(ctx context.Context, mt meta.Meta) (envelope.TaskState, string, string) {
		select {
		case <-release[mt.Parts[0].Text]:
			return envelope.StateCompleted, "done: " + mt.Parts[0].Text, ""
		case <-ctx.Done():
			return "", "", ""
		}
	})
	g1, err := a2agw.New(serveConfig("coder"), a2agw.Options{Mailbox: settings(root)})
	require.NoError(t, err)
	require.NoError(t, g1.Start(testkit.Ctx(t)))
	c1 := newClient(t, "http://"+g1.Addr()+"/agents/coder")
	ids := map[string]a2a.TaskID{}
	for _, text := range []string{"first", "second"} {
		for ev, err := range c1.SendStreamingMessage(testkit.Ctx(t), userMessage(text)) {
			require.NoError(t, err)
			if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateWorking {
				ids[text] = st.TaskID
				break
			}
		}
	}
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, g1.Stop(stop))

	close(release["second"]) // its result waits in the gateway's inbox
	w.finished.WaitFor(t, "the second task's result", func(id string) bool { return id == "a2a-"+string(ids["second"]) })

	g2 := startGateway(t, root, serveConfig("coder"))
	c2 := newClient(t, "http://"+g2.Addr()+"/agents/coder")
	ctx := testkit.Ctx(t)

	var last a2a.TaskState
	var subErr error
	for ev, err := range c2.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: ids["second"]}) {
		if err != nil {
			subErr = err
			break
		}
		if st := states([]a2a.Event{ev}); len(st) > 0 {
			last = st[0]
		}
	}
	task, err := c2.GetTask(ctx, &a2a.GetTaskRequest{ID: ids["second"]})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State, "the result that came while the gateway was down (subscribe: %v, %v)", last, subErr)
	assert.Equal(t, "done: second", task.Artifacts[0].Parts[0].Text())

	var got []a2a.TaskState
	for ev, err := range c2.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: ids["first"]}) {
		require.NoError(t, err)
		got = append(got, states([]a2a.Event{ev})...)
		if _, snapshot := ev.(*a2a.Task); snapshot && len(got) == 1 {
			assert.Equal(t, a2a.TaskStateWorking, got[0], "as it was when the gateway stopped")
			close(release["first"])
		}
	}
	assert.Equal(t, a2a.TaskStateCompleted, got[len(got)-1])
	task, err = c2.GetTask(ctx, &a2a.GetTaskRequest{ID: ids["first"]})
	require.NoError(t, err)
	assert.Equal(t, "done: first", task.Artifacts[0].Parts[0].Text())
	assert.Len(t, task.Artifacts, 1, "the result once")
	assert.Equal(t, 2, w.tasks.Count(func(meta.Meta) bool { return true }), "each task was sent once")
}
