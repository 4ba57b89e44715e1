package a2a_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// reverse is a worker's work: the words of the task in reverse order.
func reverse(_ context.Context, mt meta.Meta) (envelope.TaskState, string, string) {
	var words []string
	for _, p := range mt.Parts {
		words = append(words, strings.Fields(p.Text)...)
	}
	slices.Reverse(words)
	return envelope.StateCompleted, strings.Join(words, " "), ""
}

// An A2A client's message becomes a mailbox task from the gateway to the
// agent; the client streams the task from submitted through working to
// completed, with the agent's answer as an artifact, over each transport
// of A2A 1.0 and 0.3; GetTask and ListTasks give the same.
func TestServeStreamsAMailboxTaskToCompletion(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w := startWorker(t, root, "coder", []string{"reversing"}, nil, reverse)
	g := startGateway(t, root, serveConfig("coder"))
	base := "http://" + g.Addr() + "/agents/coder"
	for _, tt := range []struct {
		name      string
		transport a2a.TransportProtocol
	}{{"jsonrpc", a2a.TransportProtocolJSONRPC}, {"rest", a2a.TransportProtocolHTTPJSON}} {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, base, tt.transport)
			events := stream(t, c, userMessage("one two three"))
			assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted}, states(events))
			var art *a2a.TaskArtifactUpdateEvent
			for _, ev := range events {
				if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
					art = a
				}
			}
			require.NotNil(t, art, "the result is an artifact")
			assert.Equal(t, "three two one", art.Artifact.Parts[0].Text())

			id := events[0].TaskInfo().TaskID
			task, err := c.GetTask(testkit.Ctx(t), &a2a.GetTaskRequest{ID: id})
			require.NoError(t, err)
			assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
			require.Len(t, task.Artifacts, 1)
			assert.Equal(t, "three two one", task.Artifacts[0].Parts[0].Text())

			list, err := c.ListTasks(testkit.Ctx(t), &a2a.ListTasksRequest{IncludeArtifacts: true})
			require.NoError(t, err)
			assert.True(t, slices.ContainsFunc(list.Tasks, func(x *a2a.Task) bool { return x.ID == id }))

			mt := w.tasks.WaitFor(t, "the mailbox task", func(m meta.Meta) bool { return m.Task.ID == "a2a-"+string(id) })
			assert.Equal(t, "a2a", mt.From, "the gateway's identity sends it")
			require.NotNil(t, mt.TaskCallback)
			assert.Equal(t, "a2a", mt.TaskCallback.Channel)
			assert.Equal(t, string(id), mt.TaskCallback.ChatID)
		})
	}
}

// The card names the agent, its capabilities as skills, its endpoints in
// both protocol versions and, with a token, the bearer scheme; requests
// without the token are refused, the card is not.
func TestServeCardAndToken(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	startWorker(t, root, "coder", []string{"sorting", "counting"}, nil, reverse)
	cfg := serveConfig("coder")
	cfg.Token = "s3cret"
	g := startGateway(t, root, cfg)
	base := "http://" + g.Addr() + "/agents/coder"

	card, err := (&agentcard.Resolver{CardParser: a2av0.NewAgentCardParser()}).Resolve(testkit.Ctx(t), base)
	require.NoError(t, err)
	c := newClient(t, base)
	assert.Equal(t, "coder", card.Name)
	assert.Equal(t, "coder of the test", card.Description)
	var skills []string
	for _, s := range card.Skills {
		skills = append(skills, s.ID)
	}
	assert.Equal(t, []string{"sorting", "counting"}, skills)
	var urls []string
	for _, i := range card.SupportedInterfaces {
		urls = append(urls, string(i.ProtocolBinding)+" "+string(i.ProtocolVersion)+" "+strings.TrimPrefix(i.URL, base))
	}
	assert.Equal(t, []string{"JSONRPC 1.0 /jsonrpc", "HTTP+JSON 1.0 /rest", "JSONRPC 0.3 /v0.3/jsonrpc", "HTTP+JSON 0.3 /v0.3/rest"}, urls)
	require.Contains(t, card.SecuritySchemes, a2a.SecuritySchemeName("bearer"))

	_, err = c.ListTasks(testkit.Ctx(t), &a2a.ListTasksRequest{})
	require.Error(t, err, "no token")

	root2, err := c.ListTasks(withToken(t, "s3cret"), &a2a.ListTasksRequest{})
	require.NoError(t, err)
	assert.Empty(t, root2.Tasks)
	_, err = c.ListTasks(withToken(t, "wrong"), &a2a.ListTasksRequest{})
	require.Error(t, err)
}

// A task the agent declines is rejected, with its reason.
func TestServeRejected(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	judge := func(context.Context, bus.InboundMessage) (bool, string) { return false, "no capability for flying" }
	startWorker(t, root, "coder", nil, judge, reverse)
	g := startGateway(t, root, serveConfig("coder"))
	c := newClient(t, "http://"+g.Addr()+"/agents/coder")
	events := stream(t, c, userMessage("fly to the moon"))
	assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateRejected}, states(events))
	last := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
	assert.Contains(t, last.Status.Message.Parts[0].Text(), "no capability for flying")
}

// CancelTask cancels the mailbox task: the agent is told, and the task
// ends canceled.
func TestServeCancel(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	hold := func(ctx context.Context, _ meta.Meta) (envelope.TaskState, string, string) {
		<-ctx.Done()
		return "", "", ""
	}
	w := startWorker(t, root, "coder", nil, nil, hold)
	g := startGateway(t, root, serveConfig("coder"))
	c := newClient(t, "http://"+g.Addr()+"/agents/coder")
	ctx := testkit.Ctx(t)
	var id a2a.TaskID
	for ev, err := range c.SendStreamingMessage(ctx, userMessage("wait for me")) {
		require.NoError(t, err)
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateWorking {
			id = st.TaskID
			break
		}
	}
	require.NotEmpty(t, id)
	task, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, task.Status.State)
	cancel := w.other.WaitFor(t, "the cancel", func(m meta.Meta) bool {
		return m.Type == envelope.TypeTaskUpdate && m.Task != nil && m.Task.State == envelope.StateCanceled
	})
	assert.Equal(t, "a2a-"+string(id), cancel.Task.ID)
	got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, got.Status.State)
}

// A switchboard client's hop puts the task one level below its task
// tree: work that comes back to an agent of the tree is a cycle, and the
// agent rejects it; the hop's budget, lower than the gateway's, is the
// task's.
func TestServeHopKeepsTheTaskTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w := startWorker(t, root, "coder", nil, nil, reverse)
	cfg := serveConfig("coder")
	cfg.Budget = &envelope.Budget{Tokens: 5000}
	g := startGateway(t, root, cfg)
	c := newClient(t, "http://"+g.Addr()+"/agents/coder")

	hop := convert.Hop{Task: "task_1", From: "lead", TaskPath: []string{"lead>coder:" + meta.WorkFingerprint("b a")},
		Budget: &envelope.Budget{Tokens: 300}}
	req := userMessage("b a")
	req.Message.Metadata = convert.WithHop(nil, hop)
	events := stream(t, c, req)
	assert.Equal(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateRejected}, states(events))
	last := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
	assert.Contains(t, last.Status.Message.Parts[0].Text(), "the same work came back to coder")

	hop.TaskPath = []string{"lead>coder:" + meta.WorkFingerprint("other work")}
	req = userMessage("x y")
	req.Message.Metadata = convert.WithHop(nil, hop)
	events = stream(t, c, req)
	assert.Equal(t, a2a.TaskStateCompleted, states(events)[len(states(events))-1])
	mt := w.tasks.WaitFor(t, "the second task", func(m meta.Meta) bool { return envelope.OneLine(m.Parts) == "x y" })
	assert.Len(t, mt.TaskPath, 2, "one level below the client's tree")
	require.NotNil(t, mt.Task.Budget)
	assert.Equal(t, int64(300), mt.Task.Budget.Tokens, "the hop's budget, lower than the gateway's")
}

// A task the agent fails or cancels (as `switchboard cancel` does in its
// name) ends so, with the reason as its message.
func TestServeFailedAndCanceledByTheAgent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		state envelope.TaskState
		want  a2a.TaskState
	}{{envelope.StateFailed, a2a.TaskStateFailed}, {envelope.StateCanceled, a2a.TaskStateCanceled}} {
		t.Run(string(tt.state), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			startWorker(t, root, "coder", nil, nil, func(context.Context, meta.Meta) (envelope.TaskState, string, string) {
				return tt.state, "", "because"
			})
			g := startGateway(t, root, serveConfig("coder"))
			c := newClient(t, "http://"+g.Addr()+"/agents/coder")
			events := stream(t, c, userMessage("try"))
			got := states(events)
			assert.Equal(t, tt.want, got[len(got)-1])
			last := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
			assert.Equal(t, "because", last.Status.Message.Parts[0].Text())
		})
	}
}

// "*" serves every registered agent, and no agent a client makes up.
func TestServeEveryRegisteredAgent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	startWorker(t, root, "coder", nil, nil, reverse)
	g := startGateway(t, root, serveConfig("*"))
	c := newClient(t, "http://"+g.Addr()+"/agents/coder")
	events := stream(t, c, userMessage("b a"))
	assert.Equal(t, a2a.TaskStateCompleted, states(events)[len(states(events))-1])

	resp, err := http.Post("http://"+g.Addr()+"/agents/nobody/jsonrpc", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	resp, err = http.Post("http://"+g.Addr()+"/agents/a2a/jsonrpc", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "not the gateway itself")
}

// One server fronts several agents, each at its own path, each seeing its
// own tasks only; the default agent's card is at the root too.
func TestServeSeveralAgents(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	startWorker(t, root, "coder", nil, nil, reverse)
	startWorker(t, root, "critic", nil, nil, func(context.Context, meta.Meta) (envelope.TaskState, string, string) {
		return envelope.StateCompleted, "looks fine", ""
	})
	cfg := serveConfig("coder", "critic")
	cfg.Default = "critic"
	g := startGateway(t, root, cfg)
	coder := newClient(t, "http://"+g.Addr()+"/agents/coder")
	critic := newClient(t, "http://"+g.Addr())
	ctx := testkit.Ctx(t)

	events := stream(t, coder, userMessage("b a"))
	id := events[0].TaskInfo().TaskID
	events = stream(t, critic, userMessage("review this"))
	res, err := critic.GetTask(ctx, &a2a.GetTaskRequest{ID: events[0].TaskInfo().TaskID})
	require.NoError(t, err)
	assert.Equal(t, "looks fine", res.Artifacts[0].Parts[0].Text(), "the root's card is critic's")

	_, err = critic.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	assert.ErrorIs(t, err, a2a.ErrTaskNotFound, "coder's task is not critic's")
	list, err := critic.ListTasks(ctx, &a2a.ListTasksRequest{})
	require.NoError(t, err)
	assert.Len(t, list.Tasks, 1)
}

// The W3C trace context of the request, as the traceparent header or in
// the message's metadata, goes on in the mailbox task: one trace.
func TestServeCarriesTheTrace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w := startWorker(t, root, "coder", nil, nil, reverse)
	g := startGateway(t, root, serveConfig("coder"))
	c := newClient(t, "http://"+g.Addr()+"/agents/coder")

	req := userMessage("b a")
	req.Message.Metadata = convert.WithTrace(nil, map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"})
	stream(t, c, req)
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", w.traces.WaitFor(t, "the first trace", func(string) bool { return true }))

	ctx := a2aclient.AttachServiceParams(testkit.Ctx(t), a2aclient.ServiceParams{"traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}})
	for _, err := range c.SendStreamingMessage(ctx, userMessage("d c")) {
		require.NoError(t, err)
	}
	w.traces.WaitFor(t, "the header's trace", func(id string) bool { return id == "0af7651916cd43dd8448eb211c80319c" })
}
