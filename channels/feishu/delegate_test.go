package feishu_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted" // the agents' provider
	_ "github.com/switchboard-dev/switchboard/channels/mailbox"            // the channel type "mailbox"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestHelperAgent is the helper process of TestDelegationFromFeishu: an
// agent host built from the config file FEISHU_AGENT_CONFIG as `switchboard
// run` builds it (its channels through the registry, the scripted
// provider, the agent loop). It prints "running" once started and stops
// when its standard input closes.
func TestHelperAgent(t *testing.T) {
	path := os.Getenv("FEISHU_AGENT_CONFIG")
	if path == "" {
		t.Skip("the helper process of TestDelegationFromFeishu")
	}
	cfg, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h, err := host.New(cfg, host.Options{Logger: logger})
	require.NoError(t, err)
	require.NoError(t, h.Start(context.Background()))
	fmt.Println("running")
	_, _ = io.Copy(io.Discard, os.Stdin)
	require.NoError(t, h.Stop())
}

// startAgent runs TestHelperAgent on the config at path.
func startAgent(t *testing.T, path string) *helper {
	t.Helper()
	cmd := testkit.HelperCommand("TestHelperAgent", "FEISHU_AGENT_CONFIG="+path)
	p := testkit.StartProcess(t, "agent "+filepath.Base(path), cmd)
	return &helper{cmd: p.Cmd, stdin: p.Stdin, lines: p.Lines}
}

// teamConfig writes the config of one agent of the team and returns its
// path: its workspace in dir, the scripted provider, the mailbox of root,
// and the channels given (channels.mailbox is added).
func teamConfig(t *testing.T, dir, root, agent string, capabilities []string, chans map[string]any) string {
	t.Helper()
	chans["mailbox"] = map[string]any{"enabled": true, "agentId": agent, "mailboxesRoot": root,
		"capabilities": capabilities, "description": agent + " of the Feishu test"}
	data, err := json.Marshal(map[string]any{
		"agents":   map[string]any{"defaults": map[string]any{"workspace": filepath.Join(dir, agent), "provider": "scripted"}},
		"channels": chans,
	})
	require.NoError(t, err)
	path := filepath.Join(dir, agent+".json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// A Feishu user asks researcher, a host of its own with the Feishu channel
// (over the long connection) and the mailbox, to have coder sort a list;
// coder, another process with the mailbox alone, does it; the result
// comes back to the user's Feishu chat, where the request began.
func TestDelegationFromFeishu(t *testing.T) {
	t.Parallel()
	fake := feishufake.New(feishufake.Options{AppID: "cli_team"})
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	root := filepath.Join(dir, "mailboxes")
	require.NoError(t, os.Mkdir(root, 0o700))
	researcher := teamConfig(t, dir, root, "researcher", []string{"research"}, map[string]any{
		"feishu": map[string]any{"enabled": true, "appId": fake.AppID(), "appSecret": fake.AppSecret(),
			"allowFrom": []string{"ou_ada"}, "baseUrl": fake.URL()},
	})
	coder := teamConfig(t, dir, root, "coder", []string{"sorting", "counting", "arithmetic"}, map[string]any{})
	procs := []*helper{startAgent(t, coder), startAgent(t, researcher)}
	for _, p := range procs {
		p.lines.WaitFor(t, "the agent running", func(l string) bool { return l == "running" })
	}
	ctx := testkit.Ctx(t)
	require.NoError(t, fake.WaitConnections(ctx, 1), "researcher holds the long connection")

	ack, err := fake.PushEvent(ctx, feishufake.Event{MessageID: "om_sort", ChatID: "oc_ada", Sender: "ou_ada",
		Content: feishufake.Text("ask coder to sort 3 1 2")})
	require.NoError(t, err)
	require.Equal(t, 200, ack.Code, "Feishu hears the event was taken")
	done, err := fake.WaitMessages(ctx, 1, func(m feishufake.Message) bool { return strings.Contains(m.Text(), "finished") })
	require.NoError(t, err, "sent: %+v", fake.Messages())
	assert.Equal(t, "coder finished: 1 2 3", done[0].Text())
	all := fake.Messages()
	require.GreaterOrEqual(t, len(all), 2)
	assert.Regexp(t, `^I asked coder to sort 3 1 2 \(task task_\S+\)\. I'll tell you when it's done\.$`, all[0].Text())
	assert.Equal(t, "om_sort", all[0].ReplyTo, "the first answer replies to the request")
	for _, m := range all[1:] {
		// A direct chat is addressed by the user's open_id, as nanobot does.
		assert.Equal(t, "ou_ada", m.ChatID, "every later answer in ada's chat: %+v", m)
	}

	for _, p := range procs {
		require.NoError(t, p.stdin.Close())
		require.NoError(t, p.cmd.Wait())
	}
	session, err := os.ReadFile(filepath.Join(dir, "researcher", "sessions", "feishu%3Aou_ada.jsonl"))
	require.NoError(t, err, "the conversation is the chat's session")
	assert.Contains(t, string(session), `"content":"ask coder to sort 3 1 2"`)
	assert.Contains(t, string(session), `"content":"coder finished: 1 2 3"`)
}
