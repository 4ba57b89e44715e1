package slack_test

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/slack"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/slackfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// harness is a Slack channel run by a Manager against a fake Slack, with
// a scripted agent on the bus.
type harness struct {
	t    *testing.T
	fake *slackfake.Server
	bus  *bus.Bus
	ch   *slack.Channel
	cfg  slack.Config
	logs *testkit.Buffer
	// lines holds the log lines, to wait for one.
	lines *testkit.Log[string]
	// taken records every inbound message the agent took.
	taken *testkit.Log[bus.InboundMessage]
}

// testConfig is a channel config for fake: every sender allowed, the
// journal and media in dir.
func testConfig(fake *slackfake.Server, dir string) slack.Config {
	cfg := slack.DefaultConfig()
	cfg.BotToken, cfg.AppToken = channels.Secret(fake.BotToken()), channels.Secret(fake.AppToken())
	cfg.AllowFrom = []string{"*"}
	cfg.APIURL = fake.URL()
	cfg.Journal = filepath.Join(dir, "slack-journal.jsonl")
	cfg.MediaDir = filepath.Join(dir, "media")
	return cfg
}

// newHarness starts a channel (its config changed by edit, when set)
// against a new fake; the test's end stops both.
func newHarness(t *testing.T, edit func(*slack.Config)) *harness {
	t.Helper()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	cfg := testConfig(fake, t.TempDir())
	if edit != nil {
		edit(&cfg)
	}
	return startHarness(t, fake, cfg)
}

// startHarness starts a channel with cfg against fake.
func startHarness(t *testing.T, fake *slackfake.Server, cfg slack.Config) *harness {
	t.Helper()
	h := &harness{t: t, fake: fake, bus: bus.New(16), cfg: cfg, logs: &testkit.Buffer{},
		lines: testkit.NewLog[string](), taken: testkit.NewLog[bus.InboundMessage]()}
	logger := slog.New(slog.NewTextHandler(io.MultiWriter(h.logs, lineWriter{h.lines}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	ch, err := slack.New(cfg, channels.Deps{Bus: h.bus, Logger: logger})
	require.NoError(t, err)
	h.ch = ch
	channelhost.Run(t, h.bus, ch, logger, h.logs)
	return h
}

// answer runs the scripted agent: every message taken is recorded and
// answered with reply(in) (no answer when it returns ""), as the agent
// loop answers: in the message's chat, with its metadata, finishing it
// once the answer was sent.
func (h *harness) answer(reply func(bus.InboundMessage) string) {
	go channelhost.Agent(h.t.Context(), h.bus, h.taken, reply)
}

// push pushes ev and requires it acknowledged; it returns the event as
// sent (its TS).
func (h *harness) push(ev slackfake.Event) slackfake.Event {
	h.t.Helper()
	ack, err := h.fake.PushEvent(testkit.Ctx(h.t), ev)
	require.NoError(h.t, err, "the envelope is acknowledged")
	return ack.Event
}

// posted waits for n messages posted in channel (and thread, when not
// "") and returns them.
func (h *harness) posted(channel, thread string, n int) []slackfake.Message {
	h.t.Helper()
	got, err := h.fake.WaitMessages(testkit.Ctx(h.t), n, func(m slackfake.Message) bool {
		return m.Channel == channel && (thread == "" || m.ThreadTS == thread)
	})
	require.NoError(h.t, err, "%d messages in %s %s; posted: %+v", n, channel, thread, h.fake.Messages())
	return got
}

// finished waits until the answer to the message (channel, ts) was
// wholly sent: the agent finished the message, and its done reaction was
// added.
func (h *harness) finished(channel, ts string) {
	h.t.Helper()
	_, err := h.fake.WaitReactions(testkit.Ctx(h.t), 1, func(r slackfake.Reaction) bool {
		return r.Channel == channel && r.TS == ts && r.Name == "white_check_mark"
	})
	require.NoError(h.t, err, "the done reaction on %s %s", channel, ts)
}

// lineWriter adds each line written (slog writes one per call) to a log.
type lineWriter struct{ log *testkit.Log[string] }

func (w lineWriter) Write(p []byte) (int, error) {
	w.log.Add(string(p))
	return len(p), nil
}

// logged waits for a log line that holds s.
func (h *harness) logged(s string) {
	h.t.Helper()
	h.lines.WaitFor(h.t, "a log line with "+s, func(l string) bool { return strings.Contains(l, s) })
}
