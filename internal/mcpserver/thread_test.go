package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/mcpserver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestThreadShowsOnlyOwnConversations: the thread tool shows an agent the
// messages it sent or received; a conversation of other agents is refused
// as one that does not exist, and so is the part of a thread it has no
// share in.
func TestThreadShowsOnlyOwnConversations(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	s := r.server(nil)
	require.NoError(t, s.Register(testkit.Ctx(t), mcpserver.Card{AgentID: "alice"}))
	c := connect(t, s)

	secret := r.deliver("bob", "carol", "the launch codes", "", "")
	mine := r.deliver("alice", "bob", "can you sort this?", "", "t-1")
	answer := r.deliver("bob", "alice", "sorted", mine, "t-1")
	aside := r.deliver("bob", "carol", "alice asked me to sort, help", mine, "t-1")

	text, isErr := c.try("thread", map[string]any{"id": secret})
	assert.True(t, isErr)
	assert.Contains(t, text, "no conversation of yours has a message or task")
	assert.NotContains(t, text, "launch")
	unknown, isErr := c.try("thread", map[string]any{"id": "no-such-message"})
	assert.True(t, isErr)
	assert.Equal(t, text[:len("no conversation")], unknown[:len("no conversation")], "unknown and foreign look the same")

	for _, id := range []string{mine, answer, aside} {
		text, isErr = c.try("thread", map[string]any{"id": id})
		require.False(t, isErr, text)
		var entries []struct {
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
		}
		require.NoError(t, json.Unmarshal([]byte(text), &entries))
		var ids []string
		for _, e := range entries {
			ids = append(ids, e.Message.ID)
		}
		assert.ElementsMatch(t, []string{mine, answer}, ids, "thread of %s: alice's messages only", id)
	}
}
