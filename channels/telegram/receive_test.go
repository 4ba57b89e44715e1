package telegram_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A photo, a document and a voice note are downloaded into the media
// folder and handed over as paths, named in the text as nanobot names
// them; a download that fails is said in the text, and the message goes
// on.
func TestMediaIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(func(bus.InboundMessage) string { return "got it" })
	h.fake.AddFile("ph1", "", "image/jpeg", []byte("jpeg bytes"))
	h.fake.AddFile("doc1", "../../report.pdf", "application/pdf", []byte("pdf bytes"))
	h.fake.AddFile("vo1", "", "audio/ogg", []byte("ogg bytes"))
	_, photo := h.fake.Push(telegramfake.Incoming{From: ada, Photo: "ph1", Caption: "look"})
	_, doc := h.fake.Push(telegramfake.Incoming{From: ada, Document: "doc1"})
	_, voice := h.fake.Push(telegramfake.Incoming{From: ada, Voice: "vo1"})

	byID := func(id int) bus.InboundMessage {
		return h.taken.WaitFor(t, "the message", func(m bus.InboundMessage) bool { return m.Metadata["message_id"] == id })
	}
	for _, tt := range []struct {
		id   int
		kind string
		data string
		name string
	}{{photo, "image", "jpeg bytes", ".jpg"}, {doc, "file", "pdf bytes", "_report.pdf"}, {voice, "voice", "ogg bytes", ".ogg"}} {
		in := byID(tt.id)
		require.Len(t, in.Media, 1, tt.kind)
		path := in.Media[0]
		assert.Equal(t, filepath.Join(h.cfg.MediaDir), filepath.Dir(path), "in the media folder, whatever the file's name")
		assert.True(t, strings.HasSuffix(path, tt.name), path)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, tt.data, string(data))
		assert.Contains(t, in.Content, "["+tt.kind+": "+path+"]")
	}
	assert.True(t, strings.HasPrefix(byID(photo).Content, "look\n"), "the caption first")

	h.fake.AddFile("gone", "", "image/jpeg", []byte("x"))
	h.fake.FailNext("download", telegramfake.Failure{Code: 404}, telegramfake.Failure{Code: 404}, telegramfake.Failure{Code: 404})
	_, failed := h.fake.Push(telegramfake.Incoming{From: ada, Photo: "gone", Caption: "and this"})
	in := byID(failed)
	assert.Equal(t, "and this\n[image: download failed]", in.Content)
	assert.Empty(t, in.Media)
}

// What the message answers comes first, as nanobot writes it; a location
// is said; a message with nothing to read is "[empty message]".
func TestContent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(func(bus.InboundMessage) string { return "" })
	bob := telegramfake.User{ID: 9, Username: "bob"}
	_, quoted := h.fake.Push(telegramfake.Incoming{From: ada, Text: "what about this?", ReplyTo: &telegramfake.Incoming{From: bob, Text: "an idea"}})
	_, located := h.fake.Push(telegramfake.Incoming{From: ada, Location: &telegramfake.Location{Latitude: 48.85, Longitude: 2.35}})
	_, empty := h.fake.Push(telegramfake.Incoming{From: ada})
	byID := func(id int) bus.InboundMessage {
		return h.taken.WaitFor(t, "the message", func(m bus.InboundMessage) bool { return m.Metadata["message_id"] == id })
	}
	in := byID(quoted)
	assert.Equal(t, "[Reply to @bob: an idea]\nwhat about this?", in.Content)
	assert.NotNil(t, in.Metadata["reply_to_message_id"])
	assert.Equal(t, "[location: 48.85, 2.35]", byID(located).Content)
	assert.Equal(t, "[empty message]", byID(empty).Content)
}

// An update Telegram gives again after a restart (the offset had not
// reached it) is found in the journal and not answered again; a message
// taken and not answered before the stop is handed over again, once.
func TestRestartAnswersOnce(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	cfg := testConfig(fake, t.TempDir())
	first := startHarness(t, fake, cfg)
	first.answerUnless("hold", channelhost.Echo) // the turn of "hold" does not end: not finished
	answered, answeredID := fake.Push(telegramfake.Incoming{From: ada, Text: "answered"})
	held, heldID := fake.Push(telegramfake.Incoming{From: ada, Text: "hold"})
	first.replies(501, 1)
	first.finished(501, answeredID)
	first.taken.WaitFor(t, "the held message", func(m bus.InboundMessage) bool { return m.Content == "hold" })
	require.NoError(t, fake.WaitConfirmed(testkit.Ctx(t), answered+1))
	first.run.Stop()
	assert.Equal(t, held+1, fake.Confirmed(), "a clean stop confirms what was taken")

	fake.Redeliver(answered) // as if the stop had not told Telegram
	second := startHarness(t, fake, cfg)
	second.answer(channelhost.Echo)
	in := second.taken.WaitFor(t, "the held message again", nil)
	assert.Equal(t, "hold", in.Content)
	assert.True(t, in.Redelivered)
	got := second.replies(501, 2)
	assert.Equal(t, "echo: hold", got[1].Text)
	second.finished(501, heldID)
	require.NoError(t, fake.WaitConfirmed(testkit.Ctx(t), held+1))
	last, _ := fake.Push(telegramfake.Incoming{From: ada, Text: "later"})
	second.replies(501, 3)
	require.NoError(t, fake.WaitConfirmed(testkit.Ctx(t), last+1))
	assert.Len(t, second.taken.All(), 2, "the repeats of both updates were not handed over: %v", second.taken)
	assert.Len(t, fake.Messages(), 3)
}
