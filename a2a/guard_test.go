package a2a_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	a2agw "github.com/switchboard-dev/switchboard/a2a"
	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The gateway's sends count against its rate limits: with one task an
// hour to coder, a client's second task is rejected, saying how long to
// wait, and coder never sees it.
func TestServeRateLimitRejects(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w := startWorker(t, root, "coder", nil, nil, reverse)
	g, err := a2agw.New(serveConfig("coder"), a2agw.Options{Mailbox: func(id string) (mailbox.Config, error) {
		c, err := settings(root)(id)
		c.Limits.PerEdge = limits.Rate{Rate: 1, Per: "hour", Burst: 1}
		return c, err
	}})
	require.NoError(t, err)
	require.NoError(t, g.Start(testkit.Ctx(t)))
	t.Cleanup(func() {
		stop, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = g.Stop(stop)
	})
	c := newClient(t, "http://"+g.Addr()+"/agents/coder")

	first := stream(t, c, userMessage("b a"))
	assert.Equal(t, a2a.TaskStateCompleted, states(first)[len(states(first))-1])
	second := stream(t, c, userMessage("d c"))
	assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateRejected}, states(second))
	last := second[len(second)-1].(*a2a.TaskStatusUpdateEvent)
	assert.Contains(t, last.Status.Message.Parts[0].Text(), "before sending to coder again")
	assert.Len(t, w.tasks.All(), 1, "coder got the first task only")
}

// A client's hop as deep as channels.mailbox.limits.maxTaskDepth allows
// makes the gateway's task one level too deep: it is rejected, and the
// agent never works on it.
func TestServeHopTooDeepRejects(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w := startWorker(t, root, "coder", nil, nil, reverse)
	g := startGateway(t, root, serveConfig("coder"))
	c := newClient(t, "http://"+g.Addr()+"/agents/coder")

	var path []string
	for i := range limits.DefaultConfig().MaxTaskDepth {
		path = append(path, fmt.Sprintf("a%d>a%d:x", i, i+1))
	}
	req := userMessage("b a")
	req.Message.Metadata = convert.WithHop(nil, convert.Hop{Task: "task_1", From: "lead", TaskPath: path})
	events := stream(t, c, req)
	assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateRejected}, states(events))
	last := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
	assert.Contains(t, last.Status.Message.Parts[0].Text(), "maxTaskDepth")
	assert.Empty(t, w.finished.All(), "coder did no work")
}
