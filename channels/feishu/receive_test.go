package feishu_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/feishu"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// An event Feishu delivers again is answered once: while the first
// delivery is in hand, and after it was answered.
func TestRepeatedEventAnsweredOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	release := make(chan struct{})
	h.answer(func(in bus.InboundMessage) string {
		if in.ID == "om_1" {
			<-release // the agent is still working when Feishu repeats the event
		}
		return channelhost.Echo(in)
	})
	ev := feishufake.Event{MessageID: "om_1", Content: feishufake.Text("hello")}
	h.push(ev)
	h.taken.WaitFor(t, "the message", nil)
	h.push(ev) // in hand
	close(release)
	h.replies("om_1", 1)
	h.push(ev) // answered
	// A later message is answered after the repeats were taken: had a
	// repeat reached the agent, its answer would have come first.
	h.push(feishufake.Event{MessageID: "om_2", Content: feishufake.Text("next")})
	h.replies("om_2", 1)
	assert.Len(t, h.fake.Messages(), 2, "one answer each: %+v", h.fake.Messages())
	assert.Equal(t, 1, h.taken.Count(func(m bus.InboundMessage) bool { return m.ID == "om_1" }))
}

// What is not for the agent is answered to Feishu as taken (so that it
// is not delivered again) and not handed over.
func TestMessagesNotForTheAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *feishu.Config) { c.AllowFrom = []string{"ou_ada"} })
	h.answer(channelhost.Echo)
	other := []feishufake.Mention{{Key: "@_user_1", OpenID: "ou_bob", UserID: "u_bob", Name: "Bob"}}
	for _, ev := range []feishufake.Event{
		{MessageID: "om_stranger", Sender: "ou_mallory", Content: feishufake.Text("let me in")},
		{MessageID: "om_bot", Sender: "ou_ada", SenderType: "bot", Content: feishufake.Text("from a bot")},
		{MessageID: "om_group", Sender: "ou_ada", ChatType: "group", ChatID: "oc_g", Content: feishufake.Text("no mention")},
		{MessageID: "om_other", Sender: "ou_ada", ChatType: "group", ChatID: "oc_g", Content: feishufake.Text("@_user_1 hi"), Mentions: other},
	} {
		h.push(ev)
	}
	h.push(feishufake.Event{MessageID: "om_ok", Sender: "ou_ada", Content: feishufake.Text("hi")})
	h.replies("om_ok", 1)
	assert.Equal(t, []string{"om_ok"}, ids(h.taken.All()))
	assert.Contains(t, h.logs.String(), "add the sender's open_id to channels.feishu.allowFrom")
}

// groupPolicy "open" takes every group message; @all counts as a mention.
func TestGroupPolicy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		policy  string
		content string
		taken   bool
	}{
		{"mention", "plain", false},
		{"mention", "@_all meeting now", true},
		{"open", "plain", true},
	} {
		t.Run(tt.policy+"/"+tt.content, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, func(c *feishu.Config) { c.GroupPolicy = tt.policy })
			h.answer(channelhost.Echo)
			h.push(feishufake.Event{MessageID: "om_g", ChatType: "group", ChatID: "oc_g", Content: feishufake.Text(tt.content)})
			h.push(feishufake.Event{MessageID: "om_dm", Content: feishufake.Text("marker")})
			h.replies("om_dm", 1)
			assert.Equal(t, tt.taken, h.taken.Count(func(m bus.InboundMessage) bool { return m.ID == "om_g" }) == 1)
		})
	}
}

// Mentions of users read as their names and open_ids; a post's text and
// images, images and files are read, attachments downloaded into the
// media folder; other message types become a placeholder.
func TestMessageKinds(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(func(bus.InboundMessage) string { return "" })
	h.fake.AddResource("om_img", "img_k1", "cat.png", []byte("png bytes"))
	h.fake.AddResource("om_post", "img_k2", "", []byte("post image"))
	h.fake.AddResource("om_file", "file_k1", "report.pdf", []byte("pdf bytes"))
	h.fake.AddResource("om_voice", "file_k2", "", []byte("opus"))
	bob := []feishufake.Mention{{Key: "@_user_1", OpenID: "ou_bob", UserID: "u_bob", Name: "Bob"}}
	for _, ev := range []feishufake.Event{
		{MessageID: "om_text", Content: feishufake.Text("ask @_user_1 about @_user_10"), Mentions: bob},
		{MessageID: "om_post", MsgType: "post", Content: feishufake.Post("Plan",
			[]feishufake.PostElement{{"tag": "text", "text": "step one "}, {"tag": "a", "text": "doc", "href": "https://x"}},
			[]feishufake.PostElement{{"tag": "at", "user_id": "ou_bob", "user_name": "Bob"}, {"tag": "img", "image_key": "img_k2"}})},
		{MessageID: "om_img", MsgType: "image", Content: feishufake.Image("img_k1")},
		{MessageID: "om_file", MsgType: "file", Content: feishufake.File("file_k1", "report.pdf")},
		{MessageID: "om_voice", MsgType: "audio", Content: feishufake.File("file_k2", "")},
		{MessageID: "om_missing", MsgType: "image", Content: feishufake.Image("img_gone")},
		{MessageID: "om_sticker", MsgType: "sticker", Content: `{"file_key":"s"}`},
	} {
		h.push(ev)
	}
	got := map[string]bus.InboundMessage{}
	for range 7 {
		m := h.taken.Take(t, "a message", nil)
		got[m.ID] = m
	}
	assert.Equal(t, "ask @Bob (ou_bob) about @_user_10", got["om_text"].Content)

	post := got["om_post"]
	require.Len(t, post.Media, 1)
	assert.Equal(t, "Plan\nstep one doc\n@Bob\n[image: "+post.Media[0]+"]", post.Content)
	assertFile(t, post.Media[0], "post image")

	for id, want := range map[string]string{"om_img": "png bytes", "om_file": "pdf bytes", "om_voice": "opus"} {
		m := got[id]
		require.Len(t, m.Media, 1, id)
		assertFile(t, m.Media[0], want)
		assert.Equal(t, filepath.Join(h.cfg.MediaDir), filepath.Dir(m.Media[0]), "downloaded into the media folder")
		assert.Contains(t, m.Content, m.Media[0], "the agent reads where the file is")
	}
	assert.True(t, strings.HasSuffix(got["om_img"].Media[0], "om_img_cat.png"))
	assert.True(t, strings.HasSuffix(got["om_file"].Media[0], "om_file_report.pdf"))
	assert.True(t, strings.HasSuffix(got["om_voice"].Media[0], ".ogg"), "voice messages are Ogg")
	assert.Equal(t, "[image: download failed]", got["om_missing"].Content, "a failed download is said, the message handed over")
	assert.Empty(t, got["om_missing"].Media)
	assert.Equal(t, "[sticker]", got["om_sticker"].Content)
}

// Feishu cuts large events into parts; they are put together.
func TestEventInParts(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	long := strings.Repeat("long text ", 200)
	ev := feishufake.Event{MessageID: "om_big", ChatID: "oc_dm", Content: feishufake.Text(long)}
	ack, err := h.fake.PushRaw(testkit.Ctx(t), ev.Payload(""), 3)
	require.NoError(t, err)
	assert.Equal(t, 200, ack.Code)
	assert.Equal(t, long, h.taken.WaitFor(t, "the message", nil).Content)
}

// Events of types the channel does not handle are answered as taken, so
// that Feishu does not deliver them again.
func TestOtherEventsAnsweredAndIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	payload := []byte(`{"schema":"2.0","header":{"event_id":"e1","event_type":"im.message.reaction.created_v1"},"event":{}}`)
	ack, err := h.fake.PushRaw(testkit.Ctx(t), payload, 1)
	require.NoError(t, err)
	assert.Equal(t, 200, ack.Code)
}

func ids(msgs []bus.InboundMessage) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, string(data))
}
