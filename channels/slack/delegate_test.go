package slack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/slackfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The story of the channel: two agent processes, each a host built from
// its config as `switchboard run` builds it, with the scripted provider.
// researcher talks on Slack and has a mailbox; coder has a mailbox only.
// A person asks researcher, in a channel, to have coder sort numbers;
// researcher delegates the task through the mailbox, and coder's
// acceptance and result come back to the person in the thread of the
// question.
func TestDelegatedResultInTheThread(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	root := filepath.Join(dir, "mailboxes")
	require.NoError(t, os.Mkdir(root, 0o700))
	researcher := startHelper(t, channelhost.Host, channelhost.TeamConfig(t, dir, root, "researcher", []string{"research"}, map[string]any{
		"slack": map[string]any{"enabled": true, "botToken": fake.BotToken(), "appToken": fake.AppToken(),
			"allowFrom": []string{"U0ADA"}, "apiUrl": fake.URL()}}))
	coder := startHelper(t, channelhost.Host, channelhost.TeamConfig(t, dir, root, "coder", []string{"sorting"}, nil))
	researcher.Lines.WaitFor(t, "researcher running", func(l string) bool { return l == "running" })
	coder.Lines.WaitFor(t, "coder running", func(l string) bool { return l == "running" })

	ack, err := fake.PushEvent(testkit.Ctx(t), slackfake.Event{Type: "app_mention", Channel: "C0TEAM", User: "U0ADA",
		Text: "<@" + fake.BotUserID() + "> ask coder to sort 3 1 2"})
	require.NoError(t, err)
	question := ack.Event.TS
	thread, err := fake.WaitMessages(testkit.Ctx(t), 3, func(m slackfake.Message) bool {
		return m.Channel == "C0TEAM" && m.ThreadTS == question
	})
	require.NoError(t, err, "posted: %+v", fake.Messages())
	assert.Regexp(t, `^I asked coder to sort 3 1 2 \(task task_\S+\)\. I'll tell you when it's done\.$`, thread[0].Text)
	assert.Equal(t, "coder accepted the task and is working on it.", thread[1].Text)
	assert.Equal(t, "coder finished: 1 2 3", thread[2].Text)
	_, err = fake.WaitReactions(testkit.Ctx(t), 1, func(r slackfake.Reaction) bool {
		return r.TS == question && r.Name == "white_check_mark"
	})
	require.NoError(t, err, "the question marked done")

	researcher.Stop(t)
	coder.Stop(t)
	assert.Len(t, fake.Messages(), 3, "nothing else posted: %+v", fake.Messages())
	session, err := os.ReadFile(filepath.Join(dir, "researcher", "sessions", "slack%3AC0TEAM%3A"+strings.ReplaceAll(question, ".", "%2E")+".jsonl"))
	require.NoError(t, err, "the thread is the conversation's session")
	assert.Contains(t, string(session), `"content":"coder finished: 1 2 3"`)
}
