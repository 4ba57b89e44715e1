package telegramfake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// client returns a go-telegram/bot client of the fake.
func client(t *testing.T, fake *telegramfake.Server, token string) *bot.Bot {
	t.Helper()
	b, err := bot.New(token, bot.WithServerURL(fake.URL()), bot.WithSkipGetMe(), bot.WithErrorsHandler(func(error) {}))
	require.NoError(t, err)
	return b
}

// The library's calls work against the fake: getMe, a message with its
// HTML parsed into entities, a reply, a chat action, a reaction, a file.
func TestLibraryCalls(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	ctx := testkit.Ctx(t)
	b := client(t, fake, fake.Token())

	me, err := b.GetMe(ctx)
	require.NoError(t, err)
	assert.Equal(t, fake.BotID(), me.ID)
	assert.Equal(t, "fake_bot", me.Username)

	_, msgID := fake.Push(telegramfake.Incoming{From: telegramfake.User{ID: 42, Username: "ada"}, Text: "hi"})
	sent, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: int64(42), Text: "<b>bold</b> &amp; <a href=\"https://x.test/?a=1&amp;b=2\">link</a>",
		ParseMode: models.ParseModeHTML, ReplyParameters: &models.ReplyParameters{MessageID: msgID}})
	require.NoError(t, err)
	got := fake.Messages()
	require.Len(t, got, 1)
	assert.Equal(t, sent.ID, got[0].ID)
	assert.Equal(t, "bold & link", got[0].Text)
	assert.Equal(t, msgID, got[0].ReplyTo)
	assert.True(t, got[0].HasEntity("bold", "bold"))
	assert.Equal(t, []telegramfake.Entity{{Type: "bold", Offset: 0, Length: 4},
		{Type: "text_link", Offset: 7, Length: 4, URL: "https://x.test/?a=1&b=2"}}, got[0].Entities)

	_, err = b.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: int64(42), Action: models.ChatActionTyping})
	require.NoError(t, err)
	assert.Equal(t, []telegramfake.ChatAction{{ChatID: 42, Action: "typing"}}, fake.ChatActions())
	_, err = b.SetMessageReaction(ctx, &bot.SetMessageReactionParams{ChatID: int64(42), MessageID: msgID,
		Reaction: []models.ReactionType{{Type: models.ReactionTypeTypeEmoji, ReactionTypeEmoji: &models.ReactionTypeEmoji{Emoji: "👀"}}}})
	require.NoError(t, err)
	assert.Equal(t, []telegramfake.Reaction{{ChatID: 42, MessageID: msgID, Emoji: "👀"}}, fake.Reactions())

	fake.AddFile("doc1", "notes.txt", "text/plain", []byte("the notes"))
	f, err := b.GetFile(ctx, &bot.GetFileParams{FileID: "doc1"})
	require.NoError(t, err)
	resp, err := http.Get(b.FileDownloadLink(f))
	require.NoError(t, err)
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "the notes", string(data))
}

// What Telegram refuses, the fake refuses, with Telegram's errors.
func TestRefusals(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	ctx := testkit.Ctx(t)
	b := client(t, fake, fake.Token())
	send := func(text string, mode models.ParseMode) error {
		_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: int64(1), Text: text, ParseMode: mode})
		return err
	}
	for _, tt := range []struct{ text, want string }{
		{"a < b", "can't parse entities"},
		{"<b>open", "can't find end tag"},
		{"<b><i>x</b></i>", "unmatched end tag"},
		{"<div>x</div>", `unsupported start tag "div"`},
		{"<a>x</a>", "has no href"},
	} {
		err := send(tt.text, models.ParseModeHTML)
		require.ErrorIs(t, err, bot.ErrorBadRequest, tt.text)
		assert.Contains(t, err.Error(), tt.want, tt.text)
	}
	require.NoError(t, send("a < b", ""), "plain text is not parsed")
	assert.ErrorContains(t, send(strings.Repeat("é", telegramfake.MaxMessageLength+1), ""), "message is too long")
	require.NoError(t, send(strings.Repeat("<b>é</b>", telegramfake.MaxMessageLength), models.ParseModeHTML),
		"the limit counts the text shown, not the markup")
	assert.ErrorContains(t, send(strings.Repeat("😀", telegramfake.MaxMessageLength/2+1), ""), "message is too long",
		"Telegram counts UTF-16 code units")
	assert.ErrorContains(t, send("  ", ""), "message text is empty")

	fake.FailNext("sendMessage", telegramfake.Failure{Code: 429, RetryAfter: 7})
	var tooMany *bot.TooManyRequestsError
	require.ErrorAs(t, send("x", ""), &tooMany)
	assert.Equal(t, 7, tooMany.RetryAfter)
	fake.Block(5)
	_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: int64(5), Text: "x"})
	assert.ErrorIs(t, err, bot.ErrorForbidden)
	_, err = client(t, fake, "1:wrong").GetMe(ctx)
	assert.ErrorIs(t, err, bot.ErrorUnauthorized)
}

// getUpdates: an update comes back until an offset above it confirms it;
// a long poll waits for the next; Redeliver forgets confirmations; a
// webhook makes getUpdates a conflict.
func TestGetUpdatesOffsets(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	ctx := testkit.Ctx(t)
	poll := func(offset, timeout int64) []int64 {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"offset": offset, "timeout": timeout})
		resp, err := http.Post(fake.URL()+"/bot"+fake.Token()+"/getUpdates", "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		var r struct {
			OK     bool
			Result []struct {
				UpdateID int64 `json:"update_id"`
			}
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
		require.True(t, r.OK)
		var ids []int64
		for _, u := range r.Result {
			ids = append(ids, u.UpdateID)
		}
		return ids
	}
	first, _ := fake.Push(telegramfake.Incoming{From: telegramfake.User{ID: 1}, Text: "one"})
	second, _ := fake.Push(telegramfake.Incoming{From: telegramfake.User{ID: 1}, Text: "two"})
	assert.Equal(t, []int64{first, second}, poll(0, 0))
	assert.Equal(t, []int64{first, second}, poll(0, 0), "not confirmed: returned again")
	assert.Equal(t, []int64{second}, poll(first+1, 0), "the offset confirms the first")
	assert.Equal(t, []int64{second}, poll(0, 0), "a confirmed update is gone for good")
	assert.Equal(t, second, fake.Confirmed())

	got := make(chan []int64, 1)
	go func() { got <- poll(second+1, 10) }()
	require.NoError(t, fake.WaitConfirmed(ctx, second+1))
	third, _ := fake.Push(telegramfake.Incoming{From: telegramfake.User{ID: 1}, Text: "three"})
	assert.Equal(t, []int64{third}, testkit.Recv(t, got, "the long poll's answer"))

	fake.Redeliver(second)
	assert.Equal(t, []int64{second, third}, poll(0, 0))

	b := client(t, fake, fake.Token())
	_, err := b.SetWebhook(ctx, &bot.SetWebhookParams{URL: "https://bot.example/tg", SecretToken: "s3cret_token"})
	require.NoError(t, err)
	assert.Equal(t, telegramfake.Webhook{URL: "https://bot.example/tg", SecretToken: "s3cret_token"}, fake.Webhook())
	resp, err := http.Get(fake.URL() + "/bot" + fake.Token() + "/getUpdates")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusConflict, resp.StatusCode)
	_, err = b.DeleteWebhook(ctx, &bot.DeleteWebhookParams{})
	require.NoError(t, err)
	assert.Equal(t, telegramfake.Webhook{}, fake.Webhook())
	_, err = b.SetWebhook(ctx, &bot.SetWebhookParams{URL: "http://plain.example/tg"})
	assert.ErrorContains(t, err, "HTTPS URL must be provided")
}

// Deliver posts an update as Telegram posts it to a webhook.
func TestDeliver(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	got := make(chan *http.Request, 1)
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- data
	}))
	t.Cleanup(srv.Close)
	id, _ := fake.Push(telegramfake.Incoming{From: telegramfake.User{ID: 9, Username: "bo"}, Text: "hello"})
	status, _, err := fake.Deliver(testkit.Ctx(t), srv.URL+"/tg", id, "tok")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	r := testkit.Recv(t, got, "the post")
	assert.Equal(t, "tok", r.Header.Get("X-Telegram-Bot-Api-Secret-Token"))
	var u models.Update
	require.NoError(t, json.Unmarshal(testkit.Recv(t, bodies, "the body"), &u))
	assert.Equal(t, id, u.ID)
	assert.Equal(t, "hello", u.Message.Text)
	assert.Equal(t, "bo", u.Message.From.Username)
	_, _, err = fake.Deliver(testkit.Ctx(t), srv.URL, 12345, "")
	assert.ErrorContains(t, err, "no update 12345")
}

func TestParseHTML(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, text string
		ents     []telegramfake.Entity
	}{
		{"plain", "plain", nil},
		{"a &lt;b&gt; &amp; &quot;c&quot; &#65;&#x42; & d", `a <b> & "c" AB & d`, nil},
		{"<pre><code class=\"language-go\">x := 1</code></pre>", "x := 1",
			[]telegramfake.Entity{{Type: "pre", Offset: 0, Length: 6, Language: "go"}}},
		{"<blockquote expandable>q</blockquote>", "q", []telegramfake.Entity{{Type: "expandable_blockquote", Offset: 0, Length: 1}}},
		{"😀<i>x</i>", "😀x", []telegramfake.Entity{{Type: "italic", Offset: 2, Length: 1}}},
		{"<span class=\"tg-spoiler\">s</span>", "s", []telegramfake.Entity{{Type: "spoiler", Offset: 0, Length: 1}}},
	} {
		text, ents, err := telegramfake.ParseHTML(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.text, text, tt.in)
		assert.Equal(t, tt.ents, ents, tt.in)
	}
	for _, bad := range []string{"<", "a <b", "</b>", "<span>x</span>", "<a href=\"x\">y", "<b attr=\"<\">x</b>"} {
		_, _, err := telegramfake.ParseHTML(bad)
		assert.Error(t, err, bad)
	}
}
