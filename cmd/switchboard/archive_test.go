package main_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArchiveAnsweredRequest: an answered request is archivable whoever
// held it. One waiting in the inbox of an agent that never ran is settled
// by archive; one answered before its agent first starts is archived at
// that start, not handed to the agent; one held by the running agent is
// that process's to release, and archive says so.
func TestArchiveAnsweredRequest(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	req := s.sendID("--from", "boss", "--to", "executor", "--text", "which branch?", "--expects-reply")
	s.sendID("--from", "executor", "--to", "boss", "--reply-to", req, "--text", "main")
	assert.Contains(t, s.ok("archive", req), "answered; executor was not running, and it is now handled (moved out of its inbox)")
	assert.Empty(t, s.msgFiles("executor", "inbox"))
	assert.Len(t, s.msgFiles("executor", "processed"), 1)

	// Answered before the agent's first start: archived there, not handed over.
	early := s.sendID("--from", "boss", "--to", "executor", "--text", "which tag?", "--expects-reply")
	s.sendID("--from", "executor", "--to", "boss", "--reply-to", early, "--text", "v1")
	plain := s.sendID("--from", "boss", "--to", "executor", "--text", "thanks")
	recv := s.start("recv", "executor", "--count", "1", "--json")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "recv")), &got))
	assert.Equal(t, plain, got["mailbox"].(map[string]any)["message_id"], "the answered request is not handed to the agent")
	require.Equal(t, 0, recv.wait(), recv.stderrSoFar())
	assert.Len(t, s.msgFiles("executor", "processed"), 3)

	// Held by the running agent: its process releases it.
	recv = s.start("recv", "executor")
	recv.awaitStderr("listening as executor")
	held := s.sendID("--from", "boss", "--to", "executor", "--text", "which repo?", "--expects-reply")
	recv.next(recv.stdout, "the request")
	s.sendID("--from", "executor", "--to", "boss", "--reply-to", held, "--text", "this one")
	assertOneLineError(t, s.run("archive", held), 1, "answered, but executor is running and holds it (claimed)")
	recv.signal(sigterm)
	require.Equal(t, 0, recv.wait(), recv.stderrSoFar())
}
