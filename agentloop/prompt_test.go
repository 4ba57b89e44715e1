package agentloop_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/bus"
)

// namedTool is a tool that only has a name, and introduces itself in the
// system prompt (agent.Introduced).
type namedTool string

func (n namedTool) Use() string { return "use " + string(n) }

func (n namedTool) Name() string { return string(n) }
func (n namedTool) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: string(n), Description: "a tool", Parameters: map[string]any{"type": "object"}}
}
func (n namedTool) Execute(context.Context, agent.Call) (string, error) { return "", nil }

// firstPrompt runs one turn with cfg and returns its system prompt.
func firstPrompt(t *testing.T, cfg agentloop.Config) string {
	t.Helper()
	rec := &recorder{next: echo()}
	cfg.Provider = rec
	s := start(t, cfg)
	s.send(t, user("c", "hi"))
	s.recv(t)
	req := rec.requests()[0]
	require.Equal(t, agent.RoleSystem, req.Messages[0].Role)
	return req.Messages[0].Content
}

func TestSystemPromptIsBuiltFromTheWorkspaceAndIdentity(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "SOUL.md"), []byte("I am terse.\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Always sort ascending."), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "USER.md"), []byte("  \n"), 0o600))
	tools, err := agentloop.NewTools(namedTool("list_agents"), namedTool("delegate_task"), namedTool("reply"))
	require.NoError(t, err)

	got := firstPrompt(t, agentloop.Config{Workspace: ws, Tools: tools, AgentID: "coder",
		Description: "sorts things", Capabilities: []string{"sorting", "counting"}, Roles: []string{"dev"}})
	parts := strings.Split(got, "\n\n---\n\n")
	require.Len(t, parts, 4, "intro, AGENTS.md, SOUL.md, identity; the blank USER.md is left out:\n%s", got)
	assert.True(t, strings.HasPrefix(parts[0], agentloop.DefaultSystemPrompt))
	assert.Contains(t, parts[0], "Your workspace is "+ws)
	assert.Equal(t, "## AGENTS.md\n\nAlways sort ascending.", parts[1])
	assert.Equal(t, "## SOUL.md\n\nI am terse.", parts[2])
	id := parts[3]
	for _, want := range []string{`You are the agent "coder"`, "Description: sorts things",
		"Capabilities: sorting, counting", "Roles: dev", "- list_agents:", "- delegate_task:", "- reply:"} {
		assert.Contains(t, id, want)
	}
	assert.NotContains(t, id, "send_message", "only the tools offered are named")
}

func TestSystemPromptWithoutMailboxHasNoIdentity(t *testing.T) {
	t.Parallel()
	got := firstPrompt(t, agentloop.Config{})
	assert.True(t, strings.HasPrefix(got, agentloop.DefaultSystemPrompt))
	assert.NotContains(t, got, "Your identity")
}

func TestSystemPromptOverrides(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "SOUL.md"), []byte("ignored"), 0o600))
	assert.Equal(t, "You are a pirate.", firstPrompt(t, agentloop.Config{Workspace: ws, AgentID: "coder",
		SystemPrompt: "You are a pirate."}), "systemPrompt is the whole prompt")

	require.NoError(t, os.WriteFile(filepath.Join(ws, "prompt.md"), []byte("From a file."), 0o600))
	assert.Equal(t, "From a file.", firstPrompt(t, agentloop.Config{Workspace: ws, SystemPromptFile: "prompt.md"}),
		"a relative file is read from the workspace")
}

func TestSystemPromptFileErrors(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	_, err := agentloop.New(agentloop.Config{Workspace: ws, Bus: bus.New(1), Provider: echo(), SystemPromptFile: "missing.md"})
	assert.ErrorContains(t, err, "agent loop: systemPromptFile: open "+filepath.Join(ws, "missing.md"))
	assert.ErrorContains(t, err, "(create the file or remove the key)")

	empty := filepath.Join(ws, "empty.md")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	_, err = agentloop.New(agentloop.Config{Workspace: ws, Bus: bus.New(1), Provider: echo(), SystemPromptFile: empty})
	assert.EqualError(t, err, "agent loop: systemPromptFile: "+empty+" is empty: write the prompt into it or remove the key")

	_, err = agentloop.New(agentloop.Config{Workspace: ws, Bus: bus.New(1), Provider: echo(), SystemPromptFile: empty, SystemPrompt: "x",
		Judge: "maybe", JudgeTimeout: -1})
	assert.EqualError(t, err, `agent loop: judge: want "llm", "capabilities" or "accept", got "maybe"`+"\n"+
		"agent loop: judgeTimeout: want 0 or more, got -1ns\n"+
		"agent loop: systemPromptFile: set systemPrompt or systemPromptFile, not both")
}
