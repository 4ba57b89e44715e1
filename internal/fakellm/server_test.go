package fakellm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/agentloop/provider/openai"
	"github.com/switchboard-dev/switchboard/internal/fakellm"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func provider(t *testing.T, url, key string) *openai.Provider {
	t.Helper()
	p, err := openai.New(openai.Config{APIKey: key, APIBase: url + "/v1", Model: "fake-model"})
	require.NoError(t, err)
	return p
}

func tool(name string) agent.ToolSpec {
	return agent.ToolSpec{Name: name, Parameters: map[string]any{"type": "object"}}
}

// The fake answers as the cost benchmark needs, through the real client,
// and counts every call with its agent, purpose and tokens; a long prompt
// sent again is served from the cache, by OpenAI's rule.
func TestFakeAnswersAndCounts(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	srv := httptest.NewServer(llm)
	defer srv.Close()
	ctx := testkit.Ctx(t)
	researcher, coder := provider(t, srv.URL, "researcher"), provider(t, srv.URL, "coder")
	system := agent.Message{Role: agent.RoleSystem, Content: strings.Repeat("Be brief. ", 600)} // ~1,500 tokens

	ask := func(p agent.Provider, tools []agent.ToolSpec, msgs ...agent.Message) *agent.Response {
		resp, err := p.Chat(ctx, agent.Request{Messages: msgs, Tools: tools})
		require.NoError(t, err)
		return resp
	}
	user := agent.Message{Role: agent.RoleUser, Content: "please sort 5 3 9 1"}
	r := ask(researcher, []agent.ToolSpec{tool("delegate_task")}, system, user)
	require.Len(t, r.ToolCalls, 1)
	assert.Equal(t, "delegate_task", r.ToolCalls[0].Name)
	assert.JSONEq(t, `{"to":"coder","task":"sort 5 3 9 1"}`, r.ToolCalls[0].Arguments)
	assert.Zero(t, r.Usage.CachedTokens, "nothing seen before")

	j := ask(coder, []agent.ToolSpec{tool("judge_task")}, agent.Message{Role: agent.RoleUser, Content: "take it?"})
	require.Len(t, j.ToolCalls, 1)
	assert.Equal(t, "judge_task", j.ToolCalls[0].Name)
	assert.Equal(t, "1 3 5 9", ask(coder, nil, agent.Message{Role: agent.RoleUser,
		Content: "[mailbox task from researcher] sort 5 3 9 1"}).Content)
	done := ask(researcher, []agent.ToolSpec{tool("delegate_task")}, system, user,
		agent.Message{Role: agent.RoleUser, Content: "[mailbox task_update from coder: task t1 completed] 1 3 5 9"})
	assert.Equal(t, "coder finished: 1 3 5 9", done.Content)
	assert.Positive(t, done.Usage.CachedTokens, "the system prompt and the user's message again")
	assert.Zero(t, done.Usage.CachedTokens%fakellm.CacheStep)

	calls := llm.Calls()
	require.Len(t, calls, 4)
	var purposes []string
	for _, c := range calls {
		purposes = append(purposes, c.Agent+":"+c.Purpose)
	}
	assert.Equal(t, []string{"researcher:user", "coder:judge", "coder:task", "researcher:update:completed"}, purposes)
	assert.Equal(t, done.Usage.InputTokens, calls[3].InputTokens)
	assert.Equal(t, done.Usage.CachedTokens, calls[3].CachedTokens)
	assert.Greater(t, calls[0].InputTokens, int64(fakellm.MinCachedTokens))
}

// A held purpose waits until released; a request whose client gives up
// meanwhile is not counted.
func TestFakeHoldsAPurpose(t *testing.T) {
	t.Parallel()
	llm := fakellm.New()
	srv := httptest.NewServer(llm)
	defer srv.Close()
	p := provider(t, srv.URL, "coder")
	held := llm.Hold("task")
	task := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "[mailbox task from a] sort 2 1"}}}

	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { _, err := p.Chat(ctx, task); gaveUp <- err }()
	<-held.Arrived
	cancel()
	assert.Error(t, <-gaveUp)
	<-held.GaveUp
	assert.Empty(t, llm.Calls(), "a request given up is not counted")

	answered := make(chan string, 1)
	go func() {
		resp, err := p.Chat(context.Background(), task)
		if err == nil {
			answered <- resp.Content
		}
	}()
	held.Release()
	select {
	case got := <-answered:
		assert.Equal(t, "1 2", got)
	case <-time.After(testkit.WaitLimit):
		t.Fatal("not answered once released")
	}
	assert.Len(t, llm.Calls(), 1)
}

// A request that is not a chat completion is refused, as a server would.
func TestFakeRefusesBadRequests(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fakellm.New())
	defer srv.Close()
	for _, body := range []string{`not json`, `{"messages": "no"}`, `{"messages": []}`, `{"messages": [{"role": "user"}], "tools": 3}`} {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
	}
	resp, err := http.Get(srv.URL + "/v1/chat/completions")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}
