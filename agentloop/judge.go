package agentloop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/config"
)

// judgeTool is the tool through which the model gives its judgement.
const judgeTool = "judge_task"

// maxReason caps the reason of a declined task, in bytes.
const maxReason = 300

// maxJudgeTokens caps the model's answer to a judgement.
const maxJudgeTokens = 1024

// Judge decides whether this agent accepts a task delegated to it, as
// Config.Judge says:
//   - config.JudgeAccept accepts every task;
//   - config.JudgeCapabilities accepts a task whose text names one of
//     Config.Capabilities (or "sorting" as "sort"); "*" accepts all;
//   - config.JudgeLLM (the default) lets a provider that implements
//     TaskJudge decide (the scripted provider's rule), and otherwise asks
//     the model for a structured answer: accept, or decline with a reason.
//
// A judgement is bounded by Config.JudgeTimeout. One that fails, times out
// or cannot be read accepts the task and logs a warning: the task is then
// worked on, and the model can still fail it. Judge is what host gives a
// channel that delegates tasks to the agent (TaskChannel.SetJudge); a
// declined task is rejected with the reason.
func (l *Loop) Judge(ctx context.Context, in bus.InboundMessage) (bool, string) {
	info := agent.TaskInfo{From: in.SenderID, Text: in.Content, Capabilities: slices.Clone(l.cfg.Capabilities)}
	if n := in.Note; n != nil {
		info.From, info.Text, info.TaskID = n.From, n.Text, n.TaskID
	}
	switch l.cfg.Judge {
	case config.JudgeAccept:
		return true, ""
	case config.JudgeCapabilities:
		return judgeByCapabilities(info)
	}
	ctx, cancel := context.WithTimeout(ctx, l.cfg.JudgeTimeout)
	defer cancel()
	if judge, ok := l.cfg.Provider.(agent.TaskJudge); ok {
		return judge.JudgeTask(ctx, info)
	}
	accept, reason, err := l.askModel(ctx, info)
	if err != nil {
		l.log.Warn("task judgement failed; accepting the task", "task", info.TaskID, "from", info.From, "err", err)
		return true, ""
	}
	l.log.Info("task judged", "task", info.TaskID, "from", info.From, "accept", accept, "reason", reason)
	return accept, reason
}

// judgeByCapabilities accepts a task whose text names a capability.
func judgeByCapabilities(info agent.TaskInfo) (bool, string) {
	if slices.Contains(info.Capabilities, "*") {
		return true, ""
	}
	if len(info.Capabilities) == 0 {
		return false, "I list no capabilities"
	}
	text := strings.ToLower(info.Text)
	for _, c := range info.Capabilities {
		c = strings.ToLower(strings.TrimSpace(c))
		if c != "" && (strings.Contains(text, c) || strings.Contains(text, stem(c))) {
			return true, ""
		}
	}
	return false, "the task asks for none of my capabilities (" + strings.Join(info.Capabilities, ", ") + ")"
}

// stem drops an "ing" or "s" ending ("sorting" → "sort"), keeping at least
// three letters.
func stem(w string) string {
	for _, suffix := range []string{"ing", "s"} {
		if r, ok := strings.CutSuffix(w, suffix); ok && len(r) >= 3 {
			return r
		}
	}
	return w
}

// verdict is the model's structured answer.
type verdict struct {
	Accept *bool  `json:"accept"`
	Reason string `json:"reason"`
}

// askModel asks the provider for its judgement on the task.
func (l *Loop) askModel(ctx context.Context, info agent.TaskInfo) (accept bool, reason string, err error) {
	caps := "none listed"
	if len(info.Capabilities) > 0 {
		caps = strings.Join(info.Capabilities, ", ")
	}
	ask := fmt.Sprintf("Agent %q asks you to take on task %s:\n\n%s\n\n"+
		"Decide whether to accept it. Accept a task that fits your description and capabilities (%s); "+
		"decline one you are not fit for. Do not do the task now. Answer by calling %s, or with only this JSON: "+
		`{"accept": true or false, "reason": "one short sentence for the agent that asked"}`,
		info.From, info.TaskID, info.Text, caps, judgeTool)
	resp, err := hooks(l.cfg.Hooks).chat(ctx, l.cfg.Provider, nil, agent.Request{Model: l.cfg.Model,
		Messages:  []agent.Message{{Role: agent.RoleSystem, Content: l.systemPrompt()}, {Role: agent.RoleUser, Content: ask}},
		Tools:     []agent.ToolSpec{judgeSpec},
		MaxTokens: min(l.cfg.MaxTokens, maxJudgeTokens), Temperature: 0})
	if err != nil {
		return false, "", err
	}
	v, err := readVerdict(resp)
	if err != nil {
		return false, "", err
	}
	if *v.Accept {
		return true, "", nil
	}
	reason = strings.Join(strings.Fields(v.Reason), " ")
	if reason == "" {
		reason = "the model declined without a reason"
	}
	return false, clipReason(reason), nil
}

// judgeSpec describes judgeTool to the model.
var judgeSpec = agent.ToolSpec{Name: judgeTool,
	Description: "Give your decision on the task you are offered: accept it, or decline it with a short reason.",
	Parameters: map[string]any{"type": "object", "required": []string{"accept", "reason"},
		"properties": map[string]any{
			"accept": map[string]any{"type": "boolean", "description": "true to accept the task"},
			"reason": map[string]any{"type": "string", "description": "why, in one short sentence"},
		}}}

// readVerdict reads the judgement from a call of judgeTool, or else from a
// JSON object in the answer's text.
func readVerdict(resp *agent.Response) (verdict, error) {
	var v verdict
	for _, c := range resp.ToolCalls {
		if c.Name == judgeTool {
			if err := json.Unmarshal([]byte(c.Arguments), &v); err == nil && v.Accept != nil {
				return v, nil
			}
		}
	}
	text := resp.Content
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i {
		if err := json.Unmarshal([]byte(text[i:j+1]), &v); err == nil && v.Accept != nil {
			return v, nil
		}
	}
	return v, fmt.Errorf("the model's judgement has no accept field: %q", clip(text))
}

// clipReason shortens a reason to maxReason bytes, on a rune boundary.
func clipReason(s string) string {
	if len(s) <= maxReason {
		return s
	}
	cut := maxReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
