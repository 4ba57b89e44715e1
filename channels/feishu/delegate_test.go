package feishu_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted" // the agents' provider
	_ "github.com/switchboard-dev/switchboard/channels/mailbox"            // the channel type "mailbox"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

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
	researcher := channelhost.TeamConfig(t, dir, root, "researcher", []string{"research"}, map[string]any{
		"feishu": map[string]any{"enabled": true, "appId": fake.AppID(), "appSecret": fake.AppSecret(),
			"allowFrom": []string{"ou_ada"}, "baseUrl": fake.URL()},
	})
	coder := channelhost.TeamConfig(t, dir, root, "coder", []string{"sorting", "counting", "arithmetic"}, map[string]any{})
	procs := []*channelhost.Helper{startHelper(t, channelhost.Host, coder), startHelper(t, channelhost.Host, researcher)}
	for _, p := range procs {
		p.Lines.WaitFor(t, "the agent running", func(l string) bool { return l == "running" })
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
		require.NoError(t, p.Stdin.Close())
		require.NoError(t, p.Cmd.Wait())
	}
	session, err := os.ReadFile(filepath.Join(dir, "researcher", "sessions", "feishu%3Aou_ada.jsonl"))
	require.NoError(t, err, "the conversation is the chat's session")
	assert.Contains(t, string(session), `"content":"ask coder to sort 3 1 2"`)
	assert.Contains(t, string(session), `"content":"coder finished: 1 2 3"`)
}
