package telegram_test

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
	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A Telegram user asks researcher, a host of its own with the Telegram
// channel and the mailbox, to have coder sort a list; coder, another
// process with the mailbox alone, does it; the result comes back to the
// user's Telegram chat, where the request began.
func TestDelegationFromTelegram(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	root := filepath.Join(dir, "mailboxes")
	require.NoError(t, os.Mkdir(root, 0o700))
	researcher := channelhost.TeamConfig(t, dir, root, "researcher", []string{"research"}, map[string]any{
		"telegram": map[string]any{"enabled": true, "token": fake.Token(), "allowFrom": []string{"ada"},
			"baseUrl": fake.URL(), "pollTimeout": 5, "replyToMessage": true},
	})
	coder := channelhost.TeamConfig(t, dir, root, "coder", []string{"sorting", "counting", "arithmetic"}, map[string]any{})
	procs := []*channelhost.Helper{startHelper(t, channelhost.Host, coder), startHelper(t, channelhost.Host, researcher)}
	for _, p := range procs {
		p.Lines.WaitFor(t, "the agent running", func(l string) bool { return l == "running" })
	}

	_, msgID := fake.Push(telegramfake.Incoming{From: ada, Text: "ask coder to sort 3 1 2"})
	ctx := testkit.Ctx(t)
	chat, err := fake.WaitMessages(ctx, 1, func(m telegramfake.Message) bool { return strings.Contains(m.Text, "finished") })
	require.NoError(t, err, "sent: %+v", fake.Messages())
	assert.Equal(t, "coder finished: 1 2 3", chat[0].Text)
	all := fake.Messages()
	require.GreaterOrEqual(t, len(all), 2)
	assert.Regexp(t, `^I asked coder to sort 3 1 2 \(task task_\S+\)\. I'll tell you when it's done\.$`, all[0].Text)
	assert.Equal(t, msgID, all[0].ReplyTo, "the first answer quotes the request")
	for _, m := range all {
		assert.Equal(t, int64(501), m.ChatID, "every answer in ada's chat: %+v", m)
	}
	require.NoError(t, fake.WaitChatActions(ctx, 1, nil), "the bot was typing")

	for _, p := range procs {
		require.NoError(t, p.Stdin.Close())
		require.NoError(t, p.Cmd.Wait())
	}
	session, err := os.ReadFile(filepath.Join(dir, "researcher", "sessions", "telegram%3A501.jsonl"))
	require.NoError(t, err, "the conversation is the chat's session")
	assert.Contains(t, string(session), `"content":"ask coder to sort 3 1 2"`)
	assert.Contains(t, string(session), `"content":"coder finished: 1 2 3"`)
}
