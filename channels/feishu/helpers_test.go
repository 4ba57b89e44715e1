package feishu_test

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/feishu"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// harness is a Feishu channel run by a Manager against a fake Feishu,
// with a scripted agent on the bus.
type harness struct {
	t    *testing.T
	fake *feishufake.Server
	bus  *bus.Bus
	ch   *feishu.Channel
	cfg  feishu.Config
	logs *testkit.Buffer
	// taken records every inbound message the agent took.
	taken *testkit.Log[bus.InboundMessage]
}

// testConfig is a channel config for fake: every sender allowed, the
// journal and media in dir.
func testConfig(fake *feishufake.Server, dir string) feishu.Config {
	cfg := feishu.DefaultConfig()
	cfg.AppID, cfg.AppSecret = fake.AppID(), channels.Secret(fake.AppSecret())
	cfg.AllowFrom = []string{"*"}
	cfg.BaseURL = fake.URL()
	cfg.Journal = filepath.Join(dir, "feishu-journal.jsonl")
	cfg.MediaDir = filepath.Join(dir, "media")
	return cfg
}

// newHarness starts a channel (its config changed by edit, when set)
// against a new fake; the test's end stops both.
func newHarness(t *testing.T, edit func(*feishu.Config)) *harness {
	t.Helper()
	fake := feishufake.New(feishufake.Options{})
	t.Cleanup(fake.Close)
	cfg := testConfig(fake, t.TempDir())
	if edit != nil {
		edit(&cfg)
	}
	return startHarness(t, fake, cfg)
}

// startHarness starts a channel with cfg against fake.
func startHarness(t *testing.T, fake *feishufake.Server, cfg feishu.Config) *harness {
	t.Helper()
	h := &harness{t: t, fake: fake, bus: bus.New(16), cfg: cfg, logs: &testkit.Buffer{},
		taken: testkit.NewLog[bus.InboundMessage]()}
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ch, err := feishu.New(cfg, channels.Deps{Bus: h.bus, Logger: logger})
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

// push pushes ev on the long connection and requires it taken (200).
func (h *harness) push(ev feishufake.Event) {
	h.t.Helper()
	ack, err := h.fake.PushEvent(testkit.Ctx(h.t), ev)
	require.NoError(h.t, err)
	require.Equal(h.t, 200, ack.Code, "the event is taken")
}

// replies waits for n messages answering messageID and returns them.
func (h *harness) replies(messageID string, n int) []feishufake.Message {
	h.t.Helper()
	got, err := h.fake.WaitMessages(testkit.Ctx(h.t), n, func(m feishufake.Message) bool { return m.ReplyTo == messageID })
	require.NoError(h.t, err, "%d replies to %s; sent: %+v", n, messageID, h.fake.Messages())
	return got
}

// finished waits until the answer to messageID was wholly sent: the
// agent finished the message, and its reaction was withdrawn.
func (h *harness) finished(messageID string) {
	h.t.Helper()
	_, err := h.fake.WaitReactions(testkit.Ctx(h.t), 1, func(r feishufake.Reaction) bool {
		return r.MessageID == messageID && r.Deleted
	})
	require.NoError(h.t, err, "the reaction on %s withdrawn", messageID)
}
