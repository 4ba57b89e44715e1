package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The configs of internal/feishustub/README.md, with the webhook on a
// free port.
const (
	researcherConfig = `{
  "agents": {"defaults": {"workspace": "~/.nanobot/researcher"}},
  "channels": {
    "feishu-stub": {"enabled": true, "listen": "127.0.0.1:0", "outbox": "~/.nanobot/feishu-outbox.jsonl"},
    "mailbox": {"enabled": true, "agentId": "researcher", "capabilities": ["research"],
                "description": "talks with users on Feishu and hands work to other agents"}
  }
}`
	coderConfig = `{
  "agents": {"defaults": {"workspace": "~/.nanobot/coder"}},
  "channels": {
    "mailbox": {"enabled": true, "agentId": "coder", "capabilities": ["sorting", "counting", "arithmetic"],
                "description": "sorts, counts words and does arithmetic"}
  }
}`
)

var webhookAttr = regexp.MustCompile(`\bwebhook=(\S+)`)

// awaitLine reads stderr until a line contains want and returns it.
func (p *proc) awaitLine(want string) string {
	p.t.Helper()
	for {
		if line := p.next(p.stderr, "waiting for "+want); strings.Contains(line, want) {
			return line
		}
	}
}

// feishuMessage is an im.message.receive_v1 event as Feishu posts it.
func feishuMessage(eventID, openID, chatID, text string) []byte {
	content, _ := json.Marshal(map[string]string{"text": text})
	ev, _ := json.Marshal(map[string]any{
		"schema": "2.0",
		"header": map[string]any{"event_id": eventID, "event_type": "im.message.receive_v1", "app_id": "cli_test"},
		"event": map[string]any{
			"sender":  map[string]any{"sender_id": map[string]any{"open_id": openID}, "sender_type": "user"},
			"message": map[string]any{"message_id": "om_" + eventID, "chat_id": chatID, "chat_type": "p2p", "message_type": "text", "content": string(content)},
		},
	})
	return ev
}

// reply is one message the bot sent to a Feishu chat.
type reply struct {
	ChatID  string `json:"chat_id"`
	Content string `json:"content"`
}

// awaitChatReply long-polls GET /feishu/replies until a reply in chat
// contains want; it returns that reply and every reply before it.
func awaitChatReply(t *testing.T, webhook, chat, want string) (reply, []reply) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	var all []reply
	for {
		u, err := url.Parse(webhook)
		require.NoError(t, err)
		u.Path, u.RawQuery = "/feishu/replies", url.Values{"chat_id": {chat}, "after": {fmt.Sprint(len(all))}, "wait": {"5"}}.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err, "waiting for %q in chat %s; got %v", want, chat, all)
		var body struct{ Replies []reply }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		resp.Body.Close()
		for _, r := range body.Replies {
			all = append(all, r)
			if strings.Contains(r.Content, want) {
				return r, all
			}
		}
	}
}

// readOutbox reads the stub's JSON-lines outbox.
func readOutbox(t *testing.T, path string) []reply {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []reply
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r reply
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "outbox line %q", sc.Text())
		out = append(out, r)
	}
	return out
}

// TestTwoAgentProcessesAnswerInTheFeishuChat is the story of
// internal/feishustub/README.md: two `switchboard run` processes with a
// temporary HOME; a Feishu user's message posted to researcher's webhook
// over HTTP; researcher delegates to coder through the mailbox; the sorted
// list arrives in the user's chat.
func TestTwoAgentProcessesAnswerInTheFeishuChat(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	researcher := s.start("--config", s.writeConfig("researcher.json", researcherConfig), "run")
	coder := s.start("--config", s.writeConfig("coder.json", coderConfig), "run", "--log-level", "debug")
	m := webhookAttr.FindStringSubmatch(researcher.awaitLine("host running"))
	require.NotNil(t, m, "researcher logs its webhook")
	webhook := m[1]
	coder.awaitStderr("host running")

	resp, err := http.Post(webhook, "application/json", bytes.NewReader(feishuMessage("ev_1", "ou_alice", "oc_alice", "ask coder to sort 5 3 9 1")))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	answer, chat := awaitChatReply(t, webhook, "oc_alice", "finished")
	assert.Equal(t, reply{ChatID: "oc_alice", Content: "coder finished: 1 3 5 9"}, answer)
	require.Len(t, chat, 3)
	assert.Regexp(t, `^I asked coder to sort 5 3 9 1 \(task task_\S+\)\. I'll tell you when it's done\.$`, chat[0].Content)
	assert.Equal(t, "coder accepted the task and is working on it.", chat[1].Content)
	assert.Equal(t, chat, readOutbox(t, filepath.Join(s.home, ".nanobot", "feishu-outbox.jsonl")),
		"the outbox file holds what the user saw")

	session, err := os.ReadFile(filepath.Join(s.home, ".nanobot", "researcher", "sessions", "feishu%3Aoc_alice.jsonl"))
	require.NoError(t, err, "the conversation is the chat's session")
	assert.Contains(t, string(session), `"content":"ask coder to sort 5 3 9 1"`)
	assert.Contains(t, string(session), `"content":"coder finished: 1 3 5 9"`)

	for _, p := range []*proc{researcher, coder} {
		p.signal(sigterm)
		assert.Equal(t, 0, p.wait(), "stderr:\n%s", p.stderrSoFar())
	}
	assert.Regexp(t, `msg="turn text" id=\S+ thread=\S+ session=mailbox:researcher text="\[mailbox task from researcher\] sort 5 3 9 1"`, coder.stderrSoFar())
	assert.Regexp(t, `msg=answer id=\S+ thread=\S+ session=mailbox:researcher channel=mailbox chat=researcher\n`, coder.stderrSoFar())
	assert.Contains(t, coder.stderrSoFar(), `text="1 3 5 9"`, "--log-level debug logs the text")
	assert.NotContains(t, researcher.stderrSoFar(), "sort 5 3 9 1", "at info no message text is logged")
	for _, agent := range []string{"researcher", "coder"} {
		assert.Equal(t, "offline", agentCard(t, s, agent)["status"], agent)
	}
}
