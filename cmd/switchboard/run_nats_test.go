package main_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore" // the backend "nats"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// startNATS starts an embedded nats-server with JetStream on a free port,
// storing in a temporary folder, and returns its URL. It is shut down when
// the test ends.
func startNATS(t *testing.T) string {
	t.Helper()
	return startNATSOn(t, server.RANDOM_PORT, t.TempDir()).ClientURL()
}

// natsCards reads the agents' cards from the NATS backend at url.
func natsCards(t *testing.T, url string) map[string]envelope.Card {
	t.Helper()
	cfg := mailbox.DefaultConfig()
	cfg.Backend = natsstore.BackendName
	cfg.Stores = map[string]config.Section{cfg.Backend: {Path: natsstore.ConfigPath, Raw: map[string]any{"url": url}}}
	st, err := store.Open(cfg.Backend, cfg.StoreConfig())
	require.NoError(t, err)
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	cards, err := st.Cards(ctx)
	require.NoError(t, err)
	out := map[string]envelope.Card{}
	for _, c := range cards {
		out[c.AgentID] = c
	}
	return out
}

// TestTwoAgentProcessesOnNATS is the two-agent story with both hosts'
// mailboxes on NATS JetStream: two `switchboard run` processes, an
// embedded nats-server, a Feishu message posted over HTTP, the sorted list
// in the user's chat.
func TestTwoAgentProcessesOnNATS(t *testing.T) {
	t.Parallel()
	url := startNATS(t)
	s := newSandbox(t)
	onNATS := fmt.Sprintf(`"backend": "nats", "nats": {"url": %q}`, url)
	researcher := s.start("--config", s.writeConfig("researcher.json", `{
  "agents": {"defaults": {"workspace": "~/.nanobot/researcher"}},
  "channels": {
    "feishu-stub": {"enabled": true, "listen": "127.0.0.1:0", "outbox": "~/.nanobot/feishu-outbox.jsonl"},
    "mailbox": {"enabled": true, "agentId": "researcher", "capabilities": ["research"], `+onNATS+`}
  }
}`), "run")
	coder := s.start("--config", s.writeConfig("coder.json", `{
  "agents": {"defaults": {"workspace": "~/.nanobot/coder"}},
  "channels": {"mailbox": {"enabled": true, "agentId": "coder", "capabilities": ["sorting"], `+onNATS+`}},
  "observability": {"logs": {"level": "debug"}}
}`), "run")
	m := webhookAttr.FindStringSubmatch(researcher.awaitLine("host running"))
	require.NotNil(t, m, "researcher logs its webhook")
	webhook := m[1]
	coder.awaitStderr("host running")
	cards := natsCards(t, url)
	require.Contains(t, cards, "coder")
	assert.Equal(t, []string{"sorting"}, cards["coder"].Capabilities)
	card := cards["coder"]
	assert.Equal(t, envelope.StatusIdle, card.EffectiveStatus(time.Now(), 30*time.Second))

	resp, err := http.Post(webhook, "application/json", bytes.NewReader(feishuMessage("ev_1", "ou_alice", "oc_alice", "ask coder to sort 5 3 9 1")))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	answer, chat := awaitChatReply(t, webhook, "oc_alice", "finished")
	assert.Equal(t, reply{ChatID: "oc_alice", Content: "coder finished: 1 3 5 9"}, answer)
	require.Len(t, chat, 3)
	assert.Equal(t, "coder accepted the task and is working on it.", chat[1].Content)

	for _, p := range []*proc{researcher, coder} {
		p.signal(sigterm)
		assert.Equal(t, 0, p.wait(), "stderr:\n%s", p.stderrSoFar())
		assert.Contains(t, p.stderrSoFar(), `msg="mailbox stopped receiving"`)
	}
	assert.Regexp(t, `msg="answer text" id=\S+ thread=\S+ session=mailbox:researcher text="1 3 5 9"`, coder.stderrSoFar(),
		"observability.logs.level debug logs the text")
	for agent, card := range natsCards(t, url) {
		assert.Equal(t, envelope.StatusOffline, card.Status, "%s marked itself offline", agent)
	}
	assert.Empty(t, s.msgFiles("coder", "processed"), "nothing went through the filesystem")
}

// A host whose NATS server cannot be reached fails to start with the key
// to fix.
func TestRunNATSUnreachable(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.writeConfig("c.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "coder",
		"backend": "nats", "nats": {"url": "nats://127.0.0.1:1", "connectTimeout": 1}}}}`)
	assertOneLineError(t, s.run("--config", conf, "run"), 1, "connect to NATS at nats://127.0.0.1:1 (channels.mailbox.nats.url)")
}
