package telegram_test

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/telegram"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// ada is the user of most tests: a private chat with her has her id.
var ada = telegramfake.User{ID: 501, Username: "ada", FirstName: "Ada"}

// harness is a Telegram channel run by a Manager against a fake
// Telegram, with a scripted agent on the bus.
type harness struct {
	t    *testing.T
	fake *telegramfake.Server
	bus  *bus.Bus
	ch   *telegram.Channel
	run  *channelhost.Running
	cfg  telegram.Config
	logs *testkit.Buffer
	// taken records every inbound message the agent took.
	taken *testkit.Log[bus.InboundMessage]
}

// testConfig is a channel config for fake: every sender allowed, the
// journal and media in dir, a short long poll.
func testConfig(fake *telegramfake.Server, dir string) telegram.Config {
	cfg := telegram.DefaultConfig()
	cfg.Token = channels.Secret(fake.Token())
	cfg.AllowFrom = []string{"*"}
	cfg.BaseURL = fake.URL()
	cfg.PollTimeout = 5 * time.Second
	cfg.Journal = filepath.Join(dir, "telegram-journal.jsonl")
	cfg.MediaDir = filepath.Join(dir, "media")
	return cfg
}

// newHarness starts a channel (its config changed by edit, when set)
// against a new fake; the test's end stops both.
func newHarness(t *testing.T, edit func(*telegram.Config)) *harness {
	t.Helper()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	cfg := testConfig(fake, t.TempDir())
	if edit != nil {
		edit(&cfg)
	}
	return startHarness(t, fake, cfg)
}

// startHarness starts a channel with cfg against fake.
func startHarness(t *testing.T, fake *telegramfake.Server, cfg telegram.Config) *harness {
	t.Helper()
	h := &harness{t: t, fake: fake, bus: bus.New(16), cfg: cfg, logs: &testkit.Buffer{},
		taken: testkit.NewLog[bus.InboundMessage]()}
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ch, err := telegram.New(cfg, channels.Deps{Bus: h.bus, Logger: logger})
	require.NoError(t, err)
	h.ch = ch
	h.run = channelhost.Run(t, h.bus, ch, logger, h.logs)
	return h
}

// answer runs the scripted agent: every message taken is recorded and
// answered with reply(in) (no answer when it returns ""), as the agent
// loop answers: in the message's chat, with its metadata, finishing it
// once the answer was sent.
func (h *harness) answer(reply func(bus.InboundMessage) string) { h.answerUnless("", reply) }

// answerUnless is answer, but a message whose text is hold is taken and
// never finished: its turn does not end.
func (h *harness) answerUnless(hold string, reply func(bus.InboundMessage) string) {
	go channelhost.Agent(h.t.Context(), h.bus, h.taken, func(in bus.InboundMessage) string {
		if hold != "" && in.Content == hold {
			return channelhost.Never
		}
		return reply(in)
	})
}

// say sends the bot a message from ada in her private chat and returns
// the message's id.
func (h *harness) say(text string) int {
	_, id := h.fake.Push(telegramfake.Incoming{From: ada, Text: text})
	return id
}

// replies waits for n messages the bot sent to chat and returns them.
func (h *harness) replies(chat int64, n int) []telegramfake.Message {
	h.t.Helper()
	got, err := h.fake.WaitMessages(testkit.Ctx(h.t), n, func(m telegramfake.Message) bool { return m.ChatID == chat })
	require.NoError(h.t, err, "%d messages to chat %d; sent: %+v", n, chat, h.fake.Messages())
	return got
}

// finished waits until the agent finished the message (chat:id): its
// reaction was taken back.
func (h *harness) finished(chat int64, id int) {
	h.t.Helper()
	_, err := h.fake.WaitReactions(testkit.Ctx(h.t), 1, func(r telegramfake.Reaction) bool {
		return r.ChatID == chat && r.MessageID == id && r.Emoji == ""
	})
	require.NoError(h.t, err, "the reaction on %d:%d taken back", chat, id)
}
