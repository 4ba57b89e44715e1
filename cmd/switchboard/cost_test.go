package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/fakellm"
)

// fakeTeam is researcher (with the Feishu stub) and coder, two `switchboard
// run` processes on one OpenAI-compatible fake provider that counts the
// model calls (internal/fakellm; the API key is the agent's id).
type fakeTeam struct {
	s                 *sandbox
	llm               *fakellm.Server
	researcher, coder *proc
	webhook           string
	researcherCfg     string
	coderCfg          string
	defaults          string   // extra keys of agents.defaults, as JSON members
	coderArgs         []string // more arguments of coder's run
}

// teamConfig is an agent's config on the fake provider.
func teamConfig(agent, apiBase, defaults, channels string) string {
	return fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": "~/.nanobot/%[1]s", "provider": "custom", "model": "fake-model"%[3]s}},
  "providers": {"custom": {"apiKey": %[1]q, "apiBase": %[2]q, "maxRetries": 0}},
  "channels": {%[4]s}
}`, agent, apiBase, defaults, channels)
}

// startTeam starts the fake and both agents, researcher's workspace with
// an AGENTS.md of instructions bytes (standing instructions that make its
// prompt long enough for a prompt cache).
func startTeam(t *testing.T, defaults string, instructions int) *fakeTeam {
	t.Helper()
	return startTeamWith(t, defaults, instructions, "")
}

// startTeamWith is startTeam with more keys of both agents' mailbox
// sections (JSON members, each with its leading comma), a backend say.
func startTeamWith(t *testing.T, defaults string, instructions int, mailboxKeys string) *fakeTeam {
	t.Helper()
	s := newSandbox(t)
	ft := &fakeTeam{s: s, llm: fakellm.New(), defaults: defaults}
	srv := httptest.NewServer(ft.llm)
	t.Cleanup(srv.Close)
	ws := filepath.Join(s.home, ".nanobot", "researcher")
	require.NoError(t, os.MkdirAll(ws, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte(strings.Repeat(
		"Answer the user in their own words, briefly; name the agent that did the work.\n", instructions/80+1)), 0o600))
	ft.researcherCfg = s.writeConfig("researcher.json", teamConfig("researcher", srv.URL+"/v1", defaults,
		`"feishu-stub": {"enabled": true, "listen": "127.0.0.1:0", "outbox": "~/.nanobot/feishu-outbox.jsonl"},
		 "mailbox": {"enabled": true, "agentId": "researcher", "capabilities": ["research"],
		             "description": "talks with users on Feishu and hands work to other agents"`+mailboxKeys+`}`))
	ft.coderCfg = s.writeConfig("coder.json", teamConfig("coder", srv.URL+"/v1", defaults,
		`"mailbox": {"enabled": true, "agentId": "coder", "capabilities": ["sorting"],
		             "description": "sorts lists of numbers"`+mailboxKeys+`}`))
	ft.researcher = s.start("--config", ft.researcherCfg, "run")
	m := webhookAttr.FindStringSubmatch(ft.researcher.awaitLine("host running"))
	require.NotNil(t, m, "researcher logs its webhook")
	ft.webhook = m[1]
	ft.startCoder()
	return ft
}

// startCoder starts coder's process (again).
func (ft *fakeTeam) startCoder() {
	ft.coder = ft.s.start(append([]string{"--config", ft.coderCfg, "run"}, ft.coderArgs...)...)
	ft.coder.awaitStderr("host running")
}

// say posts the user's message to researcher's webhook.
func (ft *fakeTeam) say(t *testing.T, id, text string) {
	t.Helper()
	resp, err := http.Post(ft.webhook, "application/json", bytes.NewReader(feishuMessage(id, "ou_alice", "oc_alice", text)))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// stop stops both agents with SIGTERM.
func (ft *fakeTeam) stop(t *testing.T) {
	t.Helper()
	for _, p := range []*proc{ft.researcher, ft.coder} {
		p.signal(sigterm)
		assert.Equal(t, 0, p.wait(), "stderr:\n%s", p.stderrSoFar())
	}
}

// What one delegated task costs (issue 29): a user's "please sort 5 3 9 1"
// to researcher, delegated to coder, both on an OpenAI-compatible
// provider. The user reads three replies; "I asked coder" and "coder
// accepted" are told from templates, without a model call; the result
// goes through the model once. With the model's judgement of the task: 4
// calls (researcher 2, coder 2), without it (judge: capabilities): 3. The
// tokens each call read, and those a prompt cache served, are in the
// audit log's usage entries and switchboard stats, as the provider
// reported them.
func TestOneDelegatedTaskCostsAtMostFourModelCalls(t *testing.T) {
	for _, tt := range []struct {
		name     string
		defaults string
		want     []string
	}{
		{"llm judge", "", []string{"researcher:user", "coder:judge", "coder:task", "researcher:update:completed"}},
		{"judge by capabilities", `, "judge": "capabilities"`, []string{"researcher:user", "coder:task", "researcher:update:completed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ft := startTeam(t, tt.defaults, 6000)
			ft.say(t, "ev_1", "please sort 5 3 9 1")
			_, chat := awaitChatReply(t, ft.webhook, "oc_alice", "1 3 5 9")
			require.Len(t, chat, 3, "%v", chat)
			assert.Regexp(t, `^I asked coder to sort 5 3 9 1 \(task task_\S+\)\. I'll tell you when it's done\.$`, chat[0].Content)
			assert.Equal(t, "coder accepted the task and is working on it.", chat[1].Content)
			assert.Equal(t, "coder finished: 1 3 5 9", chat[2].Content)
			ft.stop(t)

			calls := ft.llm.Calls()
			var got []string
			in, cached := map[string]float64{}, map[string]float64{}
			perCall := map[string][]float64{} // agent → the input tokens of each of its calls
			for i, c := range calls {
				got = append(got, c.Agent+":"+c.Purpose)
				perCall[c.Agent] = append(perCall[c.Agent], float64(c.InputTokens))
				in[c.Agent] += float64(c.InputTokens)
				cached[c.Agent] += float64(c.CachedTokens)
				t.Logf("call %d: %s %s: %d messages, %d input tokens (%d cached), %d output", i+1, c.Agent, c.Purpose,
					c.Messages, c.InputTokens, c.CachedTokens, c.OutputTokens)
			}
			assert.Equal(t, tt.want, got)
			assert.Positive(t, cached["researcher"], "the result's call reads the prefix of the first from the cache")

			for _, line := range strings.Split(strings.TrimSpace(ft.s.ok("stats", "--json")), "\n") {
				var l map[string]any
				require.NoError(t, json.Unmarshal([]byte(line), &l), line)
				agent, _ := l["agent"].(string)
				assert.Equal(t, in[agent], l["input_tokens"], "%s: the audit log's tokens are the provider's", agent)
				assert.Equal(t, cached[agent], l["cached_tokens"], agent)
			}

			// Each call is a usage entry of its own in the audit log (a turn
			// here makes one call; the judgement is an entry of its own),
			// with the input tokens the provider reported for it.
			logged := map[string][]float64{}
			for _, line := range strings.Split(strings.TrimSpace(ft.s.ok("log", "--kind", "usage", "--json")), "\n") {
				var l map[string]any
				require.NoError(t, json.Unmarshal([]byte(line), &l), line)
				if n, ok := l["input_tokens"].(float64); ok {
					agent, _ := l["agent"].(string)
					logged[agent] = append(logged[agent], n)
				}
			}
			for agent, want := range perCall {
				assert.ElementsMatch(t, want, logged[agent], "%s: the input tokens of each call", agent)
			}
		})
	}
}
