package agentloop_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/agentloop"
)

// fakeStatus is a ToolStatus whose note and down tools the test sets.
type fakeStatus struct {
	mu   sync.Mutex
	note string
}

func (f *fakeStatus) set(note string) {
	f.mu.Lock()
	f.note = note
	f.mu.Unlock()
}

func (f *fakeStatus) Note() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.note
}

func (f *fakeStatus) Unavailable(name string) (string, bool) {
	if strings.HasPrefix(name, "mcp_files_") {
		return `MCP server "files" is down: refused; retrying`, true
	}
	return "", false
}

// TestTheModelReadsWhichToolsAreDown: the status note comes, a message of
// its own, just before the turn's message in every request of the turn
// (the user's words unchanged), the system prompt stays the same
// and the history keeps the message without it; a call to a tool of a
// server that is down is answered with why, not "unknown tool".
func TestTheModelReadsWhichToolsAreDown(t *testing.T) {
	status := &fakeStatus{note: `MCP server "files" is down: refused; retrying.`}
	rec := &recorder{next: toolThenAnswer(agent.ToolCall{ID: "1", Name: "mcp_files_read"}, agent.ToolCall{ID: "2", Name: "nope"})}
	s := start(t, agentloop.Config{Provider: rec, ToolStatus: status, SystemPrompt: "be brief"})

	s.send(t, user("c", "read the file"))
	assert.Equal(t, `[1=error: MCP server "files" is down: refused; retrying 2=error: unknown tool "nope" (available: [])]`, s.recv(t).Content)
	reqs := rec.requests()
	require.Len(t, reqs, 2)
	for _, req := range reqs {
		assert.Equal(t, agent.Message{Role: agent.RoleSystem, Content: "be brief"}, req.Messages[0])
		assert.Equal(t, agent.Message{Role: agent.RoleUser, Content: "[MCP server \"files\" is down: refused; retrying.]"}, req.Messages[1])
		assert.Equal(t, "read the file", req.Messages[2].Content)
	}

	status.set("") // the server is up: the next turn carries no note, the history none either
	s.send(t, user("c", "again"))
	s.recv(t)
	reqs = rec.requests()
	next := reqs[2]
	assert.Equal(t, "be brief", next.Messages[0].Content)
	assert.Equal(t, "read the file", next.Messages[1].Content, "the note is not kept in the history")
	assert.Equal(t, "again", next.Messages[len(next.Messages)-1].Content)
}
