package a2a_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	a2agw "github.com/switchboard-dev/switchboard/a2a"
	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
	"github.com/switchboard-dev/switchboard/tracing"
)

// A connected A2A agent is a mailbox agent with its skills as
// capabilities; a task delegated to it, by id or by any:skill, goes to it
// over A2A (streamed, polled, or through the 0.3 compatibility transport)
// and its result comes back as the task's completed update.
func TestConnectDelegatesToAnA2AAgent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name          string
		v0, streaming bool
		poll          bool
	}{
		{name: "streaming", streaming: true},
		{name: "polling", streaming: false},
		{name: "poll configured", streaming: true, poll: true},
		{name: "v0.3", v0: true, streaming: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			echo := &echoAgent{}
			url := serveEcho(t, echo, tt.v0, tt.streaming)
			startGateway(t, root, connectConfig(url, func(r *a2agw.RemoteConfig) { r.Poll = tt.poll }))
			l := startLead(t, root)
			ctx := testkit.Ctx(t)

			card, err := l.ch.Backend().Card(ctx, "echo")
			require.NoError(t, err)
			assert.Equal(t, []string{"echoing", "repeating"}, card.Capabilities)
			assert.Equal(t, "Echoes what it is told (A2A agent at "+url+")", card.Description)
			assert.Equal(t, []string{"a2a"}, card.Roles)

			fan, err := l.ch.PostTo(ctx, "any:echoing", route.Request{Type: envelope.TypeTask, Text: "hello there"})
			require.NoError(t, err)
			require.Len(t, fan.Sent, 1)
			id := fan.Sent[0].Task.ID
			done := l.update(t, id, "completed")
			assert.Equal(t, "echo", done.From)
			assert.Equal(t, "echo: hello there", envelope.OneLine(done.Parts))
			if tt.streaming && !tt.poll { // a poll may see the task only once it ended
				l.update(t, id, "working")
			}
			assert.Equal(t, int32(1), echo.created.Load())
		})
	}
}

// The hop carries the trace context and the task tree to the A2A agent,
// and the token as a bearer token.
func TestConnectCarriesTraceTreeAndToken(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	echo := &echoAgent{}
	url := serveEcho(t, echo, false, true)
	startGateway(t, root, connectConfig(url, func(r *a2agw.RemoteConfig) { r.Token = "t0k" }))
	l := startLead(t, root)
	ctx := tracing.WithParent(testkit.Ctx(t), "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "")
	msg, err := l.ch.Post(ctx, route.Request{To: "echo", Type: envelope.TypeTask, Text: "trace me"})
	require.NoError(t, err)
	l.update(t, msg.Task.ID, "completed")

	md := *echo.meta.Load()
	hop, ok := convert.HopOf(md)
	require.True(t, ok, "metadata %v", md)
	assert.Equal(t, msg.Task.ID, hop.Task)
	assert.Equal(t, "lead", hop.From)
	assert.Equal(t, msg.TaskPath, hop.TaskPath)
	assert.Contains(t, convert.TraceOf(md)[tracing.KeyTraceparent], "0af7651916cd43dd8448eb211c80319c", "the trace goes on")
	assert.Equal(t, "Bearer t0k", echo.header.Load().Get("Authorization"))
}

// An A2A agent that wants input asks the delegator in the mailbox; the
// answer goes back to it, and the task completes.
func TestConnectInputRequiredAsksTheDelegator(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	url := serveEcho(t, &echoAgent{ask: true}, false, true)
	startGateway(t, root, connectConfig(url, nil))
	l := startLead(t, root)
	ctx := testkit.Ctx(t)
	msg, err := l.ch.Post(ctx, route.Request{To: "echo", Type: envelope.TypeTask, Text: "paint it"})
	require.NoError(t, err)
	q := l.got.WaitFor(t, "the question", func(m meta.Meta) bool { return m.Type == envelope.TypeMessage && m.ExpectsReply })
	assert.Equal(t, "echo asks: which colour?", envelope.OneLine(q.Parts))
	assert.Equal(t, msg.Task.ID, q.TaskID)
	_, err = l.ch.Post(ctx, route.Request{To: "echo", Type: envelope.TypeMessage, ReplyTo: q.MessageID, Text: "blue"})
	require.NoError(t, err)
	done := l.update(t, msg.Task.ID, "completed")
	assert.Equal(t, "echo: blue", envelope.OneLine(done.Parts))
}

// A task canceled by its delegator is canceled at the A2A agent.
func TestConnectCancel(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	echo := &echoAgent{hold: make(chan struct{}), canceled: make(chan struct{}, 1)}
	defer close(echo.hold)
	url := serveEcho(t, echo, false, true)
	startGateway(t, root, connectConfig(url, nil))
	l := startLead(t, root)
	ctx := testkit.Ctx(t)
	msg, err := l.ch.Post(ctx, route.Request{To: "echo", Type: envelope.TypeTask, Text: "take your time"})
	require.NoError(t, err)
	l.update(t, msg.Task.ID, "working")
	_, err = l.ch.Post(ctx, route.Request{To: "echo", Type: envelope.TypeTaskUpdate, TaskID: msg.Task.ID,
		TaskState: envelope.StateCanceled, Reason: "changed my mind", ReplyTo: msg.ID})
	require.NoError(t, err)
	testkit.Recv(t, echo.canceled, "the cancel at the A2A agent")
}

// An agent that cannot be reached when a task comes fails the task with
// why; the card kept at the last start lets the participant start while
// its agent is down.
func TestConnectUnreachableFails(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	url, srv := serveEchoServer(t, &echoAgent{}, false, true)
	g := startGateway(t, root, connectConfig(url, nil))
	srv.Close()
	l := startLead(t, root)
	ctx := testkit.Ctx(t)
	msg, err := l.ch.Post(ctx, route.Request{To: "echo", Type: envelope.TypeTask, Text: "anyone?"})
	require.NoError(t, err)
	failed := l.update(t, msg.Task.ID, "failed")
	assert.Contains(t, failed.Task.Reason, "the A2A agent at "+url+" failed")

	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, g.Stop(stop))
	startGateway(t, root, connectConfig(url, nil)) // from the card it kept
	card, err := l.ch.Backend().Card(ctx, "echo")
	require.NoError(t, err)
	assert.Equal(t, []string{"echoing", "repeating"}, card.Capabilities)
}

// A participant stopped mid-task follows the same remote task when it
// starts again (the mailbox hands the task back): the A2A agent is given
// the task once, and its result still reaches the delegator.
func TestConnectResumesAfterRestart(t *testing.T) {
	t.Parallel()
	t.Run("folder", func(t *testing.T) { t.Parallel(); connectResumesAfterRestart(t, t.TempDir()) })
	t.Run("nats", func(t *testing.T) { t.Parallel(); connectResumesAfterRestart(t, natsTeam(t)) })
}

func connectResumesAfterRestart(t *testing.T, root string) {
	echo := &echoAgent{hold: make(chan struct{})}
	url := serveEcho(t, echo, false, true)
	g1, err := a2agw.New(connectConfig(url, nil), a2agw.Options{Mailbox: settings(root)})
	require.NoError(t, err)
	require.NoError(t, g1.Start(testkit.Ctx(t)))
	l := startLead(t, root)
	ctx := testkit.Ctx(t)
	msg, err := l.ch.Post(ctx, route.Request{To: "echo", Type: envelope.TypeTask, Text: "survive"})
	require.NoError(t, err)
	l.update(t, msg.Task.ID, "working")
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, g1.Stop(stop))

	startGateway(t, root, connectConfig(url, nil))
	close(echo.hold)
	done := l.update(t, msg.Task.ID, "completed")
	assert.Equal(t, "echo: survive", envelope.OneLine(done.Parts))
	assert.Equal(t, int32(1), echo.created.Load(), "sent once")
}
