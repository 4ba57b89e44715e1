package main_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/console"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestConsoleSendReachesAReceiverThatTakesNothingUnsigned: an agent
// whose config takes no unsigned message (allowUnsigned: []) takes what
// the operator sends from the console, verified: the console signs it
// with the operator's key, made and pinned at its start.
func TestConsoleSendReachesAReceiverThatTakesNothingUnsigned(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.writeConfig("coder.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "coder", "allowUnsigned": []}}}`)
	recv := s.start("--config", conf, "recv", "coder", "--json")
	recv.awaitStderr("listening as coder")
	url, _ := startConsole(t, s)
	base, token, ok := strings.Cut(url, "#token=")
	require.True(t, ok, url)

	req, err := http.NewRequestWithContext(testkit.Ctx(t), http.MethodPost, base+"api/action/send",
		strings.NewReader(`{"to":"coder","text":"from the operator's console"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(console.TokenHeader, token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "the operator's message")), &line))
	assert.Equal(t, "from the operator's console", line["content"])
	assert.Equal(t, "operator", line["sender_id"])
	mailbox, _ := line["mailbox"].(map[string]any)
	assert.NotEqual(t, true, mailbox["unverified"], "verified: %v", line)
	assert.NotContains(t, s.ok("dead", "coder"), "operator", "nothing set aside")
}
