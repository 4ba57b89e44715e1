package telegram_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestHelperHost is the helper process of the tests of a second process
// (channelhost.Serve).
func TestHelperHost(t *testing.T) { channelhost.Serve(t) }

// startHelper runs TestHelperHost in mode with the config file at path.
func startHelper(t *testing.T, mode, path string) *channelhost.Helper {
	t.Helper()
	return channelhost.Start(t, "TestHelperHost", mode, path, false)
}

// A message whose turn was cut by a SIGKILL is answered once after the
// restart; Telegram's giving its update again (the kill came before the
// next getUpdates confirmed it) is not answered again.
func TestKillMidTurnAnsweredOnce(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": %q}},
  "channels": {"telegram": {"enabled": true, "token": %q, "allowFrom": ["ada"], "baseUrl": %q, "pollTimeout": 5}}
}`, dir, fake.Token(), fake.URL())), 0o600))
	ctx := testkit.Ctx(t)

	first := startHelper(t, channelhost.Hold, path)
	update, msgID := fake.Push(telegramfake.Incoming{From: ada, Text: "hello"})
	id := fmt.Sprintf("501:%d", msgID)
	first.Lines.WaitFor(t, "the turn started", func(l string) bool { return l == "took "+id+" false" })
	require.NoError(t, first.Cmd.Process.Kill()) // SIGKILL mid-turn
	_ = first.Cmd.Wait()
	assert.Empty(t, fake.Messages(), "nothing was answered before the kill")
	fake.Redeliver(update) // whether or not the next getUpdates had confirmed it

	second := startHelper(t, channelhost.Answer, path)
	second.Lines.WaitFor(t, "the message handed over again", func(l string) bool { return l == "took "+id+" true" })
	replies, err := fake.WaitMessages(ctx, 1, nil)
	require.NoError(t, err)
	assert.Equal(t, "echo: hello", replies[0].Text)
	assert.Equal(t, int64(501), replies[0].ChatID)

	// A later message's answer shows that Telegram's repeat went nowhere.
	fake.Push(telegramfake.Incoming{From: ada, Text: "next"})
	_, err = fake.WaitMessages(ctx, 2, nil)
	require.NoError(t, err)
	assert.Len(t, fake.Messages(), 2, "hello and next answered once each: %+v", fake.Messages())
	assert.Equal(t, 1, second.Lines.Count(func(l string) bool { return strings.HasPrefix(l, "took "+id) }))
	require.NoError(t, fake.WaitConfirmed(ctx, update+2), "both updates confirmed")

	require.NoError(t, second.Stdin.Close()) // a clean stop
	require.NoError(t, second.Cmd.Wait())
	_, err = os.Stat(filepath.Join(dir, "telegram-journal.jsonl"))
	assert.NoError(t, err, "the journal is in the workspace by default")
}
