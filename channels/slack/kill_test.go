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

// A message whose turn was cut by a SIGKILL is answered once after the
// restart, in its thread; Slack's retry of its event after the restart is
// not answered again.
func TestKillMidTurnAnsweredOnce(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	path := writeConfig(t, dir, "config.json", map[string]any{
		"agents": map[string]any{"defaults": map[string]any{"workspace": dir}},
		"channels": map[string]any{"slack": map[string]any{"enabled": true, "botToken": fake.BotToken(),
			"appToken": fake.AppToken(), "allowFrom": []string{"*"}, "apiUrl": fake.URL()}},
	})
	ctx := testkit.Ctx(t)
	bot := "<@" + fake.BotUserID() + ">"

	first := startHelper(t, channelhost.Hold, path)
	ack, err := fake.PushEvent(ctx, slackfake.Event{Type: "app_mention", Channel: "C0GEN", Text: bot + " hello"})
	require.NoError(t, err, "Slack hears the event was taken")
	ev := ack.Event
	id := "C0GEN:" + ev.TS
	first.Lines.WaitFor(t, "the turn started", func(l string) bool { return l == "took "+id+" false" })
	require.NoError(t, first.Cmd.Process.Kill()) // SIGKILL mid-turn
	_ = first.Cmd.Wait()
	assert.Empty(t, fake.Messages(), "nothing was answered before the kill")

	second := startHelper(t, channelhost.Answer, path)
	second.Lines.WaitFor(t, "the message handed over again", func(l string) bool { return l == "took "+id+" true" })
	replies, err := fake.WaitMessages(ctx, 1, func(m slackfake.Message) bool { return m.ThreadTS == ev.TS })
	require.NoError(t, err)
	assert.Equal(t, slackfake.Message{Channel: "C0GEN", TS: replies[0].TS, ThreadTS: ev.TS, Text: "echo: hello"}, replies[0])

	// Slack delivers the event again (it retries what it thinks was
	// lost); a later message's answer shows the repeat went nowhere.
	require.NoError(t, fake.WaitConnections(ctx, 2))
	ev.RetryAttempt, ev.RetryReason = 1, "timeout"
	_, err = fake.PushEvent(ctx, ev)
	require.NoError(t, err, "the repeat is acknowledged")
	_, err = fake.PushEvent(ctx, slackfake.Event{Channel: "D0DM", Text: "next"})
	require.NoError(t, err)
	_, err = fake.WaitMessages(ctx, 1, func(m slackfake.Message) bool { return m.Channel == "D0DM" })
	require.NoError(t, err)
	assert.Len(t, fake.Messages(), 2, "each message answered once: %+v", fake.Messages())
	assert.Equal(t, 1, second.Lines.Count(func(l string) bool { return strings.HasPrefix(l, "took "+id) }))

	second.Stop(t)
	_, err = os.Stat(filepath.Join(dir, "slack-journal.jsonl"))
	assert.NoError(t, err, "the journal is in the workspace by default")
}
