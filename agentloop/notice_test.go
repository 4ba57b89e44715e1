package agentloop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/config"
)

// notice returns an update of task_7 from agent, routed to user chat u1 as
// news to tell as it is (bus.KindNotice).
func notice(agent, state, text, reason string) bus.InboundMessage {
	in := routedUpdate(agent, state, text, reason)
	in.Kind = bus.KindNotice
	in.ID = "upd-" + state + "-" + text
	return in
}

// counting is a provider that counts its calls and answers with echo.
type counting struct{ calls atomic.Int32 }

func (c *counting) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	c.calls.Add(1)
	return echo().Chat(ctx, req)
}

// News of a delegated task under way is told from the templates without a
// model call; the result, a chat message, is answered by the model, which
// reads the notices told in the conversation.
func TestNoticesAreToldWithoutTheModel(t *testing.T) {
	p := &counting{}
	rec := &recorder{next: p}
	s := start(t, agentloop.Config{Provider: rec})
	for _, tt := range []struct {
		in   bus.InboundMessage
		want string
	}{
		{notice("coder", "accepted", "", ""), "coder accepted the task and is working on it."},
		{notice("coder", "working", "", ""), "coder is working on it."},
		{notice("coder", "working", "half way", ""), "coder is working on it: half way"},
		{notice("coder", "pending", "it waits in coder's inbox until coder takes it up",
			"coder did not accept it within 30s (channels.mailbox.acceptTimeout)"),
			"task task_7: coder did not accept it within 30s (channels.mailbox.acceptTimeout); it waits in coder's inbox until coder takes it up"},
		{notice("coder", "input-required", "which numbers?", ""), "coder: task task_7 is input-required: which numbers?"},
	} {
		s.send(t, tt.in)
		out := s.recv(t)
		assert.Equal(t, tt.want, out.Content)
		assert.Equal(t, "feishu", out.Channel)
		assert.Equal(t, "u1", out.ChatID)
		assert.Equal(t, tt.in.Metadata, out.Metadata, "the answer carries the notice's metadata, as any answer")
	}
	plain := routedUpdate("coder", "accepted", "", "")
	plain.Kind, plain.Note, plain.Content = bus.KindNotice, nil, "the channel's own words"
	s.send(t, plain)
	assert.Equal(t, "the channel's own words", s.recv(t).Content, "without a note the content is told as it is")
	assert.Zero(t, p.calls.Load(), "no model call for a notice")

	s.send(t, routedUpdate("coder", "completed", "1 3 5 9", ""))
	s.recv(t)
	require.EqualValues(t, 1, p.calls.Load(), "the result goes through the model once")
	got := convo(rec.requests()[0])
	assert.Contains(t, got, "user: [mailbox task_update from coder: task task_7 accepted]")
	assert.Contains(t, got, "assistant: coder accepted the task and is working on it.", "the model reads what the user was told")
	assert.Equal(t, "user: [mailbox task_update from coder: task task_7 completed] 1 3 5 9", got[len(got)-1])
}

// With notices.mode "model" a notice is a chat message the model answers.
func TestNoticesThroughTheModel(t *testing.T) {
	p := &counting{}
	s := start(t, agentloop.Config{Provider: p, Notices: agentloop.NoticeConfig{Mode: config.NoticesModel}})
	s.send(t, notice("coder", "accepted", "", ""))
	assert.Equal(t, "echo: [mailbox task_update from coder: task task_7 accepted]", s.recv(t).Content)
	assert.EqualValues(t, 1, p.calls.Load())
}

// A notice handed over again (a crash before it was finished) is told
// again from the history, not worded anew nor recorded twice.
func TestNoticeHandedOverAgainIsToldFromTheHistory(t *testing.T) {
	ws := t.TempDir()
	s := start(t, agentloop.Config{Provider: &counting{}, Workspace: ws})
	in := notice("coder", "accepted", "", "")
	s.send(t, in)
	first := s.take(t) // never delivered: the message is not finished
	s.stop()

	again := start(t, agentloop.Config{Provider: &counting{}, Workspace: ws, Notices: agentloop.NoticeConfig{Language: config.LanguageChinese}})
	in.Redelivered = true
	again.send(t, in)
	assert.Equal(t, first.Content, again.recv(t).Content, "the words told the first time")
	data, err := os.ReadFile(filepath.Join(ws, "sessions", "feishu%3Au1.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(data), "accepted the task"), "recorded once")
}

// The templates speak Chinese when configured so, or when the operator's
// prompt asks for Chinese or is written in it; a template can be replaced.
func TestNoticeLanguageAndTemplates(t *testing.T) {
	zh := "coder 已接受任务，正在处理。"
	for _, tt := range []struct {
		name  string
		cfg   agentloop.Config
		files map[string]string
		want  string
	}{
		{"configured", agentloop.Config{Notices: agentloop.NoticeConfig{Language: config.LanguageChinese}}, nil, zh},
		{"prompt asks for it", agentloop.Config{SystemPrompt: "You are a helpful assistant. Always answer in Chinese."}, nil, zh},
		{"prompt written in it", agentloop.Config{SystemPrompt: "你是一个乐于助人的助手，回答要简短。"}, nil, zh},
		{"workspace file", agentloop.Config{}, map[string]string{"USER.md": "用户说中文。"}, zh},
		{"English prompt", agentloop.Config{SystemPrompt: "You are terse."}, nil, "coder accepted the task and is working on it."},
		{"configured English wins", agentloop.Config{SystemPrompt: "请用中文回答。",
			Notices: agentloop.NoticeConfig{Language: config.LanguageEnglish}}, nil, "coder accepted the task and is working on it."},
		{"own template", agentloop.Config{Notices: agentloop.NoticeConfig{
			Templates: map[string]string{"accepted": "✅ {agent} took task {task_id}[ ({text})]"}}}, nil, "✅ coder took task task_7"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Provider, cfg.Workspace = &counting{}, t.TempDir()
			for name, text := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(cfg.Workspace, name), []byte(text), 0o600))
			}
			s := start(t, cfg)
			s.send(t, notice("coder", "accepted", "", ""))
			assert.Equal(t, tt.want, s.recv(t).Content)
		})
	}
}

func TestNoticeConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		cfg  agentloop.NoticeConfig
		want string
	}{
		{agentloop.NoticeConfig{Mode: "later"}, `notices.mode: want "template" or "model", got "later"`},
		{agentloop.NoticeConfig{Language: "fr"}, `notices.language: want "auto", "en" or "zh", got "fr"`},
		{agentloop.NoticeConfig{Templates: map[string]string{"done": "x"}}, "notices.templates.done: not an event"},
		{agentloop.NoticeConfig{Templates: map[string]string{"accepted": "{agent"}}, "notices.templates.accepted: a '{' without its '}'"},
		{agentloop.NoticeConfig{Templates: map[string]string{"working": "{who}"}}, "notices.templates.working: unknown placeholder {who}"},
	} {
		_, err := agentloop.New(agentloop.Config{Bus: bus.New(1), Provider: &counting{}, Workspace: t.TempDir(), Notices: tt.cfg})
		assert.ErrorContains(t, err, tt.want)
	}
}

// handOver is a tool that hands work over: it concludes its call with a
// notice, unless its arguments say fail.
type handOver struct{}

func (handOver) Name() string { return "hand_over" }
func (handOver) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: "hand_over", Parameters: map[string]any{"type": "object"}}
}
func (handOver) Execute(_ context.Context, c agent.Call) (string, error) {
	if strings.Contains(c.Arguments, "fail") {
		return "", errors.New("no agent offers that")
	}
	c.Turn.Conclude(c.ID, agent.Notice{Event: agent.NoticeDelegated, Agent: "coder", TaskID: "task_" + c.ID, Task: "sort 5 3 9 1"})
	return "delegated task task_" + c.ID + " to coder", nil
}

// calls asks for the tool calls given (name and arguments) on the first
// call of a turn, and answers "done" after the tool results.
func calls(named ...[2]string) providerFunc {
	return func(_ context.Context, req agent.Request) (*agent.Response, error) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == agent.RoleTool {
			return &agent.Response{Content: "done"}, nil
		}
		resp := &agent.Response{Content: "On it."}
		for i, n := range named {
			resp.ToolCalls = append(resp.ToolCalls, agent.ToolCall{ID: "c" + string(rune('1'+i)), Name: n[0], Arguments: n[1]})
		}
		return resp, nil
	}
}

// A turn whose tool calls all concluded (work handed over) ends without
// another model call: the user is told the model's words and the notices.
// A call that failed, one that did not conclude, or notices told by the
// model, make the model answer as before.
func TestTurnEndsWhenItsCallsConcluded(t *testing.T) {
	echoTool := agent.NewTool("echo", "echoes", func(_ context.Context, _ agent.Call, in struct{}) (string, error) {
		return "echoed", nil
	})
	for _, tt := range []struct {
		name  string
		calls [][2]string
		cfg   agentloop.NoticeConfig
		want  string
		asked int32
	}{
		{"handed over", [][2]string{{"hand_over", "{}"}}, agentloop.NoticeConfig{},
			"On it.\nI asked coder to sort 5 3 9 1 (task task_c1). I'll tell you when it's done.", 1},
		{"two handed over", [][2]string{{"hand_over", "{}"}, {"hand_over", "{}"}}, agentloop.NoticeConfig{},
			"On it.\nI asked coder to sort 5 3 9 1 (task task_c1). I'll tell you when it's done.\n" +
				"I asked coder to sort 5 3 9 1 (task task_c2). I'll tell you when it's done.", 1},
		{"in Chinese", [][2]string{{"hand_over", "{}"}}, agentloop.NoticeConfig{Language: config.LanguageChinese},
			"On it.\n我已请 coder 处理：sort 5 3 9 1（任务 task_c1），完成后告诉你。", 1},
		{"failed", [][2]string{{"hand_over", `{"fail": true}`}}, agentloop.NoticeConfig{}, "done", 2},
		{"another tool too", [][2]string{{"hand_over", "{}"}, {"echo", "{}"}}, agentloop.NoticeConfig{}, "done", 2},
		{"through the model", [][2]string{{"hand_over", "{}"}}, agentloop.NoticeConfig{Mode: config.NoticesModel}, "done", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var asked atomic.Int32
			p := providerFunc(func(ctx context.Context, req agent.Request) (*agent.Response, error) {
				asked.Add(1)
				return calls(tt.calls...)(ctx, req)
			})
			tools, err := agentloop.NewTools(handOver{}, echoTool)
			require.NoError(t, err)
			s := start(t, agentloop.Config{Provider: p, Tools: tools, Notices: tt.cfg})
			s.send(t, user("c", "please sort 5 3 9 1"))
			assert.Equal(t, tt.want, s.recv(t).Content)
			assert.Equal(t, tt.asked, asked.Load(), "model calls")
		})
	}
}

// The model is told that handing work over ends its turn, unless notices
// go through the model.
func TestIdentitySaysAHandOverEndsTheTurn(t *testing.T) {
	for mode, want := range map[string]bool{config.NoticesTemplate: true, config.NoticesModel: false} {
		rec := &recorder{next: echo()}
		s := start(t, agentloop.Config{Provider: rec, AgentID: "researcher", Notices: agentloop.NoticeConfig{Mode: mode}})
		s.send(t, user("c", "hi"))
		s.recv(t)
		system := rec.requests()[0].Messages[0].Content
		assert.Equal(t, want, strings.Contains(system, "Handing work to another agent ends your turn"), mode)
	}
}
