package agentloop_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
)

// convo returns the roles and contents of a request's messages after the
// system prompt.
func convo(req agent.Request) []string {
	var out []string
	for _, m := range req.Messages[1:] {
		out = append(out, m.Role+": "+m.Content)
	}
	return out
}

func TestLoopHistoryContinuesAfterRestart(t *testing.T) {
	ws := t.TempDir()
	rec := &recorder{next: echo()}
	s := start(t, agentloop.Config{Workspace: ws, Provider: rec})
	s.send(t, user("c", "first"))
	assert.Equal(t, "echo: first", s.recv(t).Content)
	s.stop()

	rec2 := &recorder{next: echo()}
	s2 := start(t, agentloop.Config{Workspace: ws, Provider: rec2})
	s2.send(t, user("c", "second"))
	assert.Equal(t, "echo: second", s2.recv(t).Content)
	reqs := rec2.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, agent.RoleSystem, reqs[0].Messages[0].Role)
	assert.Equal(t, []string{"user: first", "assistant: echo: first", "user: second"}, convo(reqs[0]))
}

func TestLoopHistoryKeepsToolRounds(t *testing.T) {
	ws := t.TempDir()
	tools, err := agentloop.NewTools(&countTool{name: "noop"})
	require.NoError(t, err)
	rounds := 0
	p := providerFunc(func(_ context.Context, req agent.Request) (*agent.Response, error) {
		if lastUser(req) == "use a tool" && rounds == 0 {
			rounds++
			return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "c1", Name: "noop", Arguments: "{}"}}}, nil
		}
		return &agent.Response{Content: "ok"}, nil
	})
	s := start(t, agentloop.Config{Workspace: ws, Provider: p, Tools: tools})
	s.send(t, user("c", "use a tool"))
	assert.Equal(t, "ok", s.recv(t).Content)
	s.stop()

	rec := &recorder{next: echo()}
	s2 := start(t, agentloop.Config{Workspace: ws, Provider: rec})
	s2.send(t, user("c", "again"))
	s2.recv(t)
	msgs := rec.requests()[0].Messages[1:]
	require.Len(t, msgs, 5)
	assert.Equal(t, []agent.ToolCall{{ID: "c1", Name: "noop", Arguments: "{}"}}, msgs[1].ToolCalls)
	assert.Equal(t, agent.Message{Role: agent.RoleTool, Name: "noop", ToolCallID: "c1", Content: "noop ran 1 times"}, msgs[2])
}

func TestLoopSkipsTornLastLine(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	file := filepath.Join(dir, "feishu%3Ac.jsonl")
	good, _ := json.Marshal(agent.Message{Role: agent.RoleUser, Content: "before the crash"})
	require.NoError(t, os.WriteFile(file, append(append(good, '\n'), `{"role":"assistant","cont`...), 0o600))

	rec := &recorder{next: echo()}
	s := start(t, agentloop.Config{Workspace: ws, Provider: rec})
	s.send(t, user("c", "after"))
	assert.Equal(t, "echo: after", s.recv(t).Content)
	assert.Equal(t, []string{"user: before the crash", "user: after"}, convo(rec.requests()[0]))
	s.stop()

	// The torn line stays on its own line; everything after it reads back.
	var readable int
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m agent.Message
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			readable++
		}
	}
	assert.Equal(t, 3, readable)

	rec2 := &recorder{next: echo()}
	s2 := start(t, agentloop.Config{Workspace: ws, Provider: rec2})
	s2.send(t, user("c", "later"))
	s2.recv(t)
	assert.Equal(t, []string{"user: before the crash", "user: after", "assistant: echo: after", "user: later"},
		convo(rec2.requests()[0]))
}

func TestLoopSessionFilesStayInWorkspace(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	s := start(t, agentloop.Config{Workspace: ws, Provider: echo()})
	keys := []string{"../../escape", "..", ".", "a/b/c", "/etc/passwd", `c:\windows`, "x\x00y", "ü:ß", ""}
	for i, k := range keys {
		in := user("chat", fmt.Sprint("m", i))
		in.SessionKeyOverride = k
		s.send(t, in)
		s.recv(t)
	}
	s.stop()
	top, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Len(t, top, 1, "something was written beside the workspace")
	assert.Equal(t, "ws", top[0].Name())
	entries, err := os.ReadDir(filepath.Join(ws, "sessions"))
	require.NoError(t, err)
	assert.Len(t, entries, len(keys), "one file per session, none shared")
	for _, e := range entries {
		assert.True(t, e.Type().IsRegular(), e.Name())
		assert.NotContains(t, e.Name(), "..")
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(ws, path)
		if path != root {
			assert.False(t, rel == ".." || len(rel) > 2 && rel[:3] == "../", "outside the workspace: %s", path)
		}
		return nil
	})
	require.NoError(t, err)
}

func TestLoopHistoryWindow(t *testing.T) {
	rec := &recorder{next: echo()}
	s := start(t, agentloop.Config{Provider: rec, HistoryWindow: 3})
	for _, m := range []string{"one", "two", "three"} {
		s.send(t, user("c", m))
		s.recv(t)
	}
	reqs := rec.requests()
	// The window of 3 would start at an assistant message: it starts at the
	// next user message instead.
	assert.Equal(t, []string{"user: two", "assistant: echo: two", "user: three"}, convo(reqs[2]))
}

func TestLoopSessionsAreSeparate(t *testing.T) {
	rec := &recorder{next: echo()}
	s := start(t, agentloop.Config{Provider: rec})
	s.send(t, user("a", "for a"))
	s.recv(t)
	in := user("b", "for b")
	s.send(t, in)
	s.recv(t)
	assert.Equal(t, []string{"user: for b"}, convo(rec.requests()[1]))
}

// The window moves in steps of half its size, so that successive requests
// of a long conversation start with the same messages (a provider's
// prompt cache serves them): with a window of 8 messages (4 turns), the
// requests of turns 6 and 7 both start at turn 3's message, where a window
// that slid with every turn would start turn 6's at turn 2's.
func TestLoopHistoryWindowMovesInSteps(t *testing.T) {
	rec := &recorder{next: echo()}
	s := start(t, agentloop.Config{Provider: rec, HistoryWindow: 8})
	for _, m := range []string{"one", "two", "three", "four", "five", "six", "seven"} {
		s.send(t, user("c", m))
		s.recv(t)
	}
	reqs := rec.requests()
	assert.Equal(t, "user: one", convo(reqs[4])[0], "turn 5: the 8 messages before it")
	assert.Equal(t, []string{"user: three", "assistant: echo: three", "user: four", "assistant: echo: four",
		"user: five", "assistant: echo: five", "user: six"}, convo(reqs[5]))
	assert.Equal(t, convo(reqs[5]), convo(reqs[6])[:7], "turn 7's request starts as turn 6's did")
}
