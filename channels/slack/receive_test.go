package slack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/slack"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/slackfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// An event Slack delivers again is answered once: while the first
// delivery is in hand, and after it was answered. So is a message Slack
// sends both as a message event and as an app_mention event.
func TestRepeatedEventAnsweredOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *slack.Config) { c.GroupPolicy = slack.GroupOpen })
	release := make(chan struct{})
	h.answer(func(in bus.InboundMessage) string {
		if in.Content == "hello" {
			<-release // the agent is still working when Slack repeats the event
		}
		return channelhost.Echo(in)
	})
	ev := h.push(slackfake.Event{Text: "hello"})
	h.taken.WaitFor(t, "the message", nil)
	ev.RetryAttempt, ev.RetryReason = 1, "timeout"
	h.push(ev) // in hand
	close(release)
	h.posted("D0DM", "", 1)
	h.finished("D0DM", ev.TS)
	ev.RetryAttempt = 2
	h.push(ev) // answered

	bot := "<@" + h.fake.BotUserID() + ">"
	both := h.push(slackfake.Event{Channel: "C0GEN", Text: bot + " twice"})
	h.push(slackfake.Event{Type: "app_mention", Channel: "C0GEN", TS: both.TS, Text: bot + " twice"})
	h.posted("C0GEN", both.TS, 1)
	h.finished("C0GEN", both.TS)

	// A later message is answered after the repeats were taken: had a
	// repeat reached the agent, its answer would have come first.
	h.push(slackfake.Event{Text: "next"})
	h.posted("D0DM", "", 2)
	assert.Len(t, h.fake.Messages(), 3, "one answer each: %+v", h.fake.Messages())
	assert.Equal(t, []string{"hello", "twice", "next"}, contents(h.taken.All()))
}

// What is not for the agent is acknowledged (so that Slack does not
// deliver it again) and not handed over.
func TestMessagesNotForTheAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *slack.Config) { c.AllowFrom = []string{"U0ADA", "U0BOB"} })
	h.answer(channelhost.Echo)
	for _, ev := range []slackfake.Event{
		{User: "U0MALLORY", Text: "let me in"},
		{User: h.fake.BotUserID(), Text: "the bot's own"},
		{BotID: "B0OTHER", Subtype: "bot_message", Text: "another bot"},
		{User: "U0ADA", Subtype: "message_changed", Text: "an edit"},
		{User: "U0ADA", Channel: "C0GEN", Text: "no mention"},
		{User: "U0ADA", Channel: "C0GEN", Text: "<@U0BOB> mentions someone else"},
		{Type: "reaction_added"},
	} {
		h.push(ev)
	}
	h.push(slackfake.Event{User: "U0ADA", Text: "marker"})
	h.posted("D0DM", "", 1)
	assert.Equal(t, []string{"marker"}, contents(h.taken.All()))
	assert.Contains(t, h.logs.String(), "add the user id to channels.slack.allowFrom")
}

// groupPolicy and dm.policy decide as nanobot's do.
func TestPolicies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*slack.Config)
		ev   slackfake.Event
		take bool
	}{
		{"mention: a mention", nil, slackfake.Event{Channel: "C0GEN", Text: "<@U0BOT> hi"}, true},
		{"mention: an app_mention", nil, slackfake.Event{Type: "app_mention", Channel: "C0GEN", Text: "hi"}, true},
		{"mention: a plain message", nil, slackfake.Event{Channel: "C0GEN", Text: "hi"}, false},
		{"open: a plain message", func(c *slack.Config) { c.GroupPolicy = slack.GroupOpen },
			slackfake.Event{Channel: "C0GEN", Text: "hi"}, true},
		{"allowlist: a listed channel", allowlist(false), slackfake.Event{Channel: "C0OK", Text: "hi"}, true},
		{"allowlist: another channel", allowlist(false), slackfake.Event{Channel: "C0GEN", Text: "<@U0BOT> hi"}, false},
		{"allowlist with mention: no mention", allowlist(true), slackfake.Event{Channel: "C0OK", Text: "hi"}, false},
		{"allowlist with mention: a mention", allowlist(true), slackfake.Event{Channel: "C0OK", Text: "<@U0BOT> hi"}, true},
		{"private channel", nil, slackfake.Event{Channel: "G0PRIV", Text: "<@U0BOT> hi"}, true},
		{"dm disabled", func(c *slack.Config) { c.DM.Enabled = false }, slackfake.Event{Text: "hi"}, false},
		{"dm allowlist: listed", dmAllowlist, slackfake.Event{User: "U0ADA", Text: "hi"}, true},
		{"dm allowlist: not listed", dmAllowlist, slackfake.Event{User: "U0BOB", Text: "hi"}, false},
		{"dm allowlist: not in allowFrom", func(c *slack.Config) { dmAllowlist(c); c.AllowFrom = []string{"U0BOB", "U0MARK"} },
			slackfake.Event{User: "U0ADA", Text: "hi"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tt.edit)
			h.answer(channelhost.Echo)
			ev := h.push(tt.ev)
			// a message taken after ev: a direct message, else a mention
			marker := slackfake.Event{Channel: "D0MARK", User: "U0MARK", Text: "marker"}
			if !h.cfg.DM.Enabled {
				marker = slackfake.Event{Type: "app_mention", Channel: "C0MARK", User: "U0MARK", Text: "marker"}
			}
			marker = h.push(marker)
			h.taken.WaitFor(t, "the marker", func(m bus.InboundMessage) bool { return strings.HasSuffix(m.ID, ":"+marker.TS) })
			taken := h.taken.Count(func(m bus.InboundMessage) bool { return strings.HasSuffix(m.ID, ":"+ev.TS) }) == 1
			assert.Equal(t, tt.take, taken)
		})
	}
}

func allowlist(requireMention bool) func(*slack.Config) {
	return func(c *slack.Config) {
		c.GroupPolicy, c.GroupAllowFrom, c.GroupRequireMention = slack.GroupAllowlist, []string{"C0OK"}, requireMention
	}
}

func dmAllowlist(c *slack.Config) {
	c.DM.Policy, c.DM.AllowFrom = slack.DMAllowlist, []string{"U0ADA", "U0MARK"}
	c.AllowFrom = []string{"*"}
}

// Files shared in a message are downloaded into the media folder and
// handed over, named in the text; one that cannot be had is said in the
// text, and the message is handed over all the same.
func TestFilesIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(func(bus.InboundMessage) string { return "" })
	h.fake.FailNext(slackfake.CallFile, slackfake.Succeed, slackfake.Failure{Status: 404}, slackfake.Failure{Status: 404},
		slackfake.Failure{Status: 404})
	h.push(slackfake.Event{Subtype: "file_share", Text: "two files", Files: []slackfake.File{
		{ID: "F1", Name: "cat.png", Mimetype: "image/png", Data: []byte("png bytes")},
		{ID: "F2", Name: "gone.txt", Mimetype: "text/plain", Data: []byte("x")},
	}})
	in := h.taken.WaitFor(t, "the message", nil)
	require.Len(t, in.Media, 1)
	assert.Equal(t, filepath.Join(h.cfg.MediaDir, "F1_cat.png"), in.Media[0])
	data, err := os.ReadFile(in.Media[0])
	require.NoError(t, err)
	assert.Equal(t, "png bytes", string(data))
	assert.Equal(t, "two files\n[image: "+in.Media[0]+"]\n[file: gone.txt: download failed; check that the bot has "+
		"the files:read scope and can see the file]", in.Content)
}

// When the channel stops taking events, it closes its Socket Mode
// connection: Slack keeps what comes meanwhile for the next one. What was
// taken before is still answered.
func TestStopReceivingClosesTheConnection(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	release := make(chan struct{})
	h.answer(func(in bus.InboundMessage) string { <-release; return channelhost.Echo(in) })
	h.push(slackfake.Event{Text: "before"})
	h.taken.WaitFor(t, "the message", nil)
	require.NoError(t, h.ch.StopReceiving(testkit.Ctx(t)))
	require.NoError(t, h.fake.WaitLive(testkit.Ctx(t), 0), "the connection is closed")
	close(release)
	assert.Equal(t, "echo: before", h.posted("D0DM", "", 1)[0].Text)
}

// contents returns the contents of msgs.
func contents(msgs []bus.InboundMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}

// An event that cannot be handed over (the bus refuses it) is not
// acknowledged, and is not remembered as taken: Slack's next delivery of
// it, to the next run, is taken.
func TestEventNotTakenNotAcknowledged(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	cfg := testConfig(fake, t.TempDir())
	h := startHarness(t, fake, cfg)
	require.NoError(t, h.bus.CloseInbound())
	pushed := make(chan error, 1)
	ev := slackfake.Event{Text: "refused", TS: "1750000001.000001"}
	go func() { _, err := fake.PushEvent(testkit.Ctx(t), ev); pushed <- err }()
	h.logged("slack event not taken; Slack delivers it again")
	require.NoError(t, h.ch.StopReceiving(testkit.Ctx(t)))
	assert.ErrorIs(t, testkit.Recv(t, pushed, "the push's end"), slackfake.ErrConnectionClosed, "never acknowledged")

	again := startHarness(t, fake, cfg)
	again.answer(channelhost.Echo)
	ev.RetryAttempt = 1
	again.push(ev)
	assert.Equal(t, "echo: refused", again.posted("D0DM", "", 1)[0].Text)
}

// A file Slack says is over the cap is not downloaded; a media folder that
// cannot be written is named; the message is handed over all the same.
func TestFilesNotKept(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600))
	h := newHarness(t, func(c *slack.Config) { c.MediaDir = filepath.Join(blocker, "media") })
	h.answer(func(bus.InboundMessage) string { return "" })
	h.push(slackfake.Event{Subtype: "file_share", Files: []slackfake.File{{ID: "F1", Name: "a.txt", Data: []byte("x")}}})
	in := h.taken.WaitFor(t, "the message", nil)
	assert.Empty(t, in.Media)
	assert.Equal(t, "[file: a.txt: not saved, see channels.slack.mediaDir]", in.Content)
}
