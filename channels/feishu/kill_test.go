package feishu_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
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
// restart; Feishu's retry of its event after the restart is not answered
// again.
func TestKillMidTurnAnsweredOnce(t *testing.T) {
	t.Parallel()
	fake := feishufake.New(feishufake.Options{AppID: "cli_kill"})
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": %q}},
  "channels": {"feishu": {"enabled": true, "appId": %q, "appSecret": %q, "allowFrom": ["*"], "baseUrl": %q}}
}`, dir, fake.AppID(), fake.AppSecret(), fake.URL())), 0o600))
	ctx := testkit.Ctx(t)
	ev := feishufake.Event{MessageID: "om_1", ChatID: "oc_dm", Content: feishufake.Text("hello")}

	first := startHelper(t, channelhost.Hold, path)
	ack, err := fake.PushEvent(ctx, ev)
	require.NoError(t, err)
	require.Equal(t, 200, ack.Code, "Feishu hears the event was taken")
	first.Lines.WaitFor(t, "the turn started", func(l string) bool { return l == "took om_1 false" })
	require.NoError(t, first.Cmd.Process.Kill()) // SIGKILL mid-turn
	_ = first.Cmd.Wait()
	assert.Empty(t, fake.Messages(), "nothing was answered before the kill")

	second := startHelper(t, channelhost.Answer, path)
	second.Lines.WaitFor(t, "the message handed over again", func(l string) bool { return l == "took om_1 true" })
	replies, err := fake.WaitMessages(ctx, 1, func(m feishufake.Message) bool { return m.ReplyTo == "om_1" })
	require.NoError(t, err)
	assert.Equal(t, "echo: hello", replies[0].Text())
	assert.Equal(t, "oc_dm", replies[0].ChatID)

	// Feishu delivers the event again (it retries what it thinks was
	// lost); a later message's answer shows the repeat went nowhere.
	require.NoError(t, fake.WaitConnections(ctx, 2))
	ack, err = fake.PushEvent(ctx, ev)
	require.NoError(t, err)
	assert.Equal(t, 200, ack.Code)
	ack, err = fake.PushEvent(ctx, feishufake.Event{MessageID: "om_2", ChatID: "oc_dm", Content: feishufake.Text("next")})
	require.NoError(t, err)
	assert.Equal(t, 200, ack.Code)
	_, err = fake.WaitMessages(ctx, 1, func(m feishufake.Message) bool { return m.ReplyTo == "om_2" })
	require.NoError(t, err)
	assert.Len(t, fake.Messages(), 2, "om_1 and om_2 answered once each: %+v", fake.Messages())
	assert.Equal(t, 1, second.Lines.Count(func(l string) bool { return strings.HasPrefix(l, "took om_1") }))

	require.NoError(t, second.Stdin.Close()) // a clean stop
	require.NoError(t, second.Cmd.Wait())
	_, err = os.Stat(filepath.Join(dir, "feishu-journal.jsonl"))
	assert.NoError(t, err, "the journal is in the workspace by default")
}
