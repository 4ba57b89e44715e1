package agentloop_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/config"
)

func judgeLoop(t *testing.T, cfg agentloop.Config) *agentloop.Loop {
	t.Helper()
	cfg.Workspace, cfg.Bus = t.TempDir(), bus.New(1)
	l, err := agentloop.New(cfg)
	require.NoError(t, err)
	return l
}

func answer(content string, calls ...agent.ToolCall) providerFunc {
	return func(context.Context, agent.Request) (*agent.Response, error) {
		return &agent.Response{Content: content, ToolCalls: calls}, nil
	}
}

func TestJudgeAsksTheModel(t *testing.T) {
	t.Parallel()
	task := fromAgent("researcher", bus.NoteTask, "paint the fence", "task_9")
	for _, tt := range []struct {
		name   string
		answer providerFunc
		accept bool
		reason string
	}{
		{"tool call declines", answer("", agent.ToolCall{Name: "judge_task",
			Arguments: `{"accept": false, "reason": "I sort lists;\n painting is not my job."}`}), false, "I sort lists; painting is not my job."},
		{"tool call accepts", answer("", agent.ToolCall{Name: "judge_task", Arguments: `{"accept": true, "reason": "fits"}`}), true, ""},
		{"JSON text declines", answer("Sure.\n```json\n{\"accept\": false, \"reason\": \"no brushes\"}\n```"), false, "no brushes"},
		{"declines without reason", answer(`{"accept": false}`), false, "the model declined without a reason"},
		{"unreadable accepts", answer("I would love to!"), true, ""},
		{"error accepts", func(context.Context, agent.Request) (*agent.Response, error) {
			return nil, errors.New("503")
		}, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{next: tt.answer}
			l := judgeLoop(t, agentloop.Config{Provider: rec, AgentID: "coder", Capabilities: []string{"sorting"}})
			ok, why := l.Judge(context.Background(), task)
			assert.Equal(t, tt.accept, ok)
			assert.Equal(t, tt.reason, why)
			req := rec.requests()[0]
			require.Len(t, req.Messages, 2)
			assert.Contains(t, req.Messages[0].Content, `You are the agent "coder"`, "the model judges as itself")
			assert.Contains(t, req.Messages[1].Content, "paint the fence")
			assert.Contains(t, req.Messages[1].Content, "task_9")
			require.Len(t, req.Tools, 1)
			assert.Equal(t, "judge_task", req.Tools[0].Name)
		})
	}
}

func TestJudgeTimeoutAccepts(t *testing.T) {
	t.Parallel()
	slow := providerFunc(func(ctx context.Context, _ agent.Request) (*agent.Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	l := judgeLoop(t, agentloop.Config{Provider: slow, JudgeTimeout: 10 * time.Millisecond})
	ok, why := l.Judge(context.Background(), fromAgent("a", bus.NoteTask, "x", "t"))
	assert.True(t, ok)
	assert.Empty(t, why)
}

func TestJudgeModes(t *testing.T) {
	t.Parallel()
	never := providerFunc(func(context.Context, agent.Request) (*agent.Response, error) {
		t.Error("the model is not asked")
		return nil, errors.New("no")
	})
	task := func(text string) bus.InboundMessage {
		return fromAgent("researcher", bus.NoteTask, text, "t1")
	}
	ok, _ := judgeLoop(t, agentloop.Config{Provider: never, Judge: config.JudgeAccept}).Judge(context.Background(), task("anything"))
	assert.True(t, ok)

	byCaps := judgeLoop(t, agentloop.Config{Provider: never, Judge: config.JudgeCapabilities, Capabilities: []string{"Sorting", "research"}})
	for text, want := range map[string]bool{"sort 5 3 1": true, "do some research on Go": true, "paint the fence": false} {
		ok, why := byCaps.Judge(context.Background(), task(text))
		assert.Equal(t, want, ok, text)
		if !want {
			assert.Equal(t, "the task asks for none of my capabilities (Sorting, research)", why)
		}
	}
	ok, _ = judgeLoop(t, agentloop.Config{Provider: never, Judge: config.JudgeCapabilities, Capabilities: []string{"*"}}).
		Judge(context.Background(), task("paint"))
	assert.True(t, ok)
	ok, why := judgeLoop(t, agentloop.Config{Provider: never, Judge: config.JudgeCapabilities}).Judge(context.Background(), task("sort"))
	assert.False(t, ok)
	assert.Equal(t, "I list no capabilities", why)

	ok, why = judgeLoop(t, agentloop.Config{Provider: scripted.New(), Capabilities: []string{"counting"}}).
		Judge(context.Background(), task("sort 3 1"))
	assert.False(t, ok, "the scripted provider keeps its own rule under llm")
	assert.Equal(t, "no capability for sort", why)
}
