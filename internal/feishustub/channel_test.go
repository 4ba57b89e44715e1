package feishustub_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	feishustub "github.com/switchboard-dev/switchboard/internal/feishustub"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

type stub struct {
	ch     *feishustub.Channel
	bus    *bus.Bus
	base   string
	outbox string
}

func startStub(t *testing.T, mutate func(*feishustub.Config)) *stub {
	t.Helper()
	cfg := feishustub.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Outbox = filepath.Join(t.TempDir(), "outbox.jsonl")
	if mutate != nil {
		mutate(&cfg)
	}
	b := bus.New(8)
	ch, err := feishustub.New(cfg, b, nil)
	require.NoError(t, err)
	require.NoError(t, ch.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancel()
		assert.NoError(t, ch.Stop(ctx))
	})
	return &stub{ch: ch, bus: b, base: "http://" + ch.Addr().String(), outbox: cfg.Outbox}
}

func messageEvent(eventID, openID, chatID, text string) string {
	content, _ := json.Marshal(map[string]string{"text": text})
	ev := map[string]any{
		"schema": "2.0",
		"header": map[string]any{"event_id": eventID, "event_type": "im.message.receive_v1",
			"create_time": "1745659200000", "token": "tok", "app_id": "cli_demo"},
		"event": map[string]any{
			"sender": map[string]any{"sender_id": map[string]any{"open_id": openID}, "sender_type": "user"},
			"message": map[string]any{"message_id": "om_" + eventID, "chat_id": chatID, "chat_type": "p2p",
				"message_type": "text", "content": string(content)},
		},
	}
	data, _ := json.Marshal(ev)
	return string(data)
}

func (s *stub) post(t *testing.T, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(s.base+"/feishu/events", "application/json", bytes.NewBufferString(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

func TestWebhookPublishesTextMessage(t *testing.T) {
	s := startStub(t, nil)
	code, _ := s.post(t, messageEvent("ev1", "ou_user", "oc_chat", "ask coder to sort 5 3 9 1"))
	require.Equal(t, http.StatusOK, code)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	in, err := s.bus.ConsumeInbound(ctx)
	require.NoError(t, err)
	assert.Equal(t, "feishu", in.Channel)
	assert.Equal(t, "ou_user", in.SenderID)
	assert.Equal(t, "oc_chat", in.ChatID)
	assert.Equal(t, "ask coder to sort 5 3 9 1", in.Content)
	assert.Equal(t, "feishu:oc_chat", in.SessionKey())
	assert.Equal(t, "om_ev1", in.Metadata["message_id"])
}

func TestWebhookDuplicateEventPublishedOnce(t *testing.T) {
	s := startStub(t, nil)
	for range 2 {
		code, _ := s.post(t, messageEvent("ev-dup", "ou_user", "oc_chat", "hello"))
		require.Equal(t, http.StatusOK, code)
	}
	assert.Equal(t, 1, s.bus.InboundDepth())
}

func TestWebhookRejectsBadInput(t *testing.T) {
	s := startStub(t, func(c *feishustub.Config) {
		c.AllowFrom = []string{"ou_boss"}
		c.VerificationToken = "tok"
	})
	image := `{"schema":"2.0","header":{"event_id":"e","event_type":"im.message.receive_v1","token":"tok"},` +
		`"event":{"sender":{"sender_id":{"open_id":"ou_boss"}},"message":{"chat_id":"c","message_type":"image","content":"{}"}}}`
	tests := []struct {
		name string
		body string
		code int
		msg  string
	}{
		{"not json", `{"schema":`, http.StatusBadRequest, "not valid JSON"},
		{"wrong token", `{"type":"url_verification","challenge":"x","token":"nope"}`, http.StatusUnauthorized, "verificationToken"},
		{"sender not allowed", messageEvent("e1", "ou_stranger", "c", "hi"), http.StatusForbidden, "not allowed"},
		{"image without its key", image, http.StatusBadRequest, "image without image_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := s.post(t, tt.body)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, out["error"], tt.msg)
		})
	}
	assert.Zero(t, s.bus.InboundDepth(), "nothing published for bad input")
}

// Events the stub does not hand over are answered 200 all the same, so that
// Feishu does not retry them; images and files reach the agent as media.
func TestWebhookIgnoresOtherEventsAndTakesMedia(t *testing.T) {
	s := startStub(t, nil)
	ev := func(typ, content string) string {
		return `{"schema":"2.0","header":{"event_id":"e-` + typ + `","event_type":"im.message.receive_v1"},` +
			`"event":{"sender":{"sender_id":{"open_id":"ou_u"}},"message":{"message_id":"om_` + typ +
			`","chat_id":"c","message_type":"` + typ + `","content":` + strconv.Quote(content) + `}}}`
	}
	for _, body := range []string{
		`{"schema":"2.0","header":{"event_id":"e-upd","event_type":"im.chat.updated_v1"}}`,
		ev("sticker", `{"file_key":"s1"}`),
	} {
		code, out := s.post(t, body)
		assert.Equal(t, http.StatusOK, code)
		assert.Contains(t, out["ignored"], "is not handled")
	}
	assert.Zero(t, s.bus.InboundDepth(), "nothing handed over for them")

	code, _ := s.post(t, ev("image", `{"image_key":"img_1"}`))
	require.Equal(t, http.StatusOK, code)
	code, _ = s.post(t, ev("file", `{"file_key":"f_1","file_name":"report.pdf"}`))
	require.Equal(t, http.StatusOK, code)
	img, err := s.bus.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"feishu:image/img_1"}, img.Media)
	assert.Equal(t, "[image]", img.Content)
	file, err := s.bus.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"feishu:file/f_1"}, file.Media)
	assert.Equal(t, "[file report.pdf]", file.Content)
	assert.Equal(t, "om_file", file.ID)
}

func TestURLVerificationEchoesChallenge(t *testing.T) {
	s := startStub(t, func(c *feishustub.Config) { c.VerificationToken = "tok" })
	code, out := s.post(t, `{"type":"url_verification","challenge":"abc123","token":"tok"}`)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "abc123", out["challenge"])
}

func TestSendAppendsToOutboxAndWakesReaders(t *testing.T) {
	s := startStub(t, nil)
	type result struct {
		Replies []feishustub.Reply `json:"replies"`
		Next    int                `json:"next"`
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get(s.base + "/feishu/replies?chat_id=oc_chat&wait=30")
		if err != nil {
			got <- result{}
			return
		}
		defer resp.Body.Close()
		var r result
		_ = json.NewDecoder(resp.Body).Decode(&r)
		got <- r
	}()
	ctx := context.Background()
	require.NoError(t, s.ch.Send(ctx, bus.OutboundMessage{Channel: "feishu", ChatID: "oc_chat", Content: "1 3 5 9"}))
	select {
	case r := <-got:
		require.Len(t, r.Replies, 1)
		assert.Equal(t, "1 3 5 9", r.Replies[0].Content)
		assert.Equal(t, 1, r.Next)
	case <-time.After(testkit.WaitLimit):
		t.Fatal("waiting reader not woken by the reply")
	}
	require.NoError(t, s.ch.Send(ctx, bus.OutboundMessage{Channel: "feishu", ChatID: "oc_other", Content: "second"}))
	lines := readLines(t, s.outbox)
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"chat_id":"oc_chat"`)
	assert.Contains(t, lines[1], `"content":"second"`)
	info, err := os.Stat(s.outbox)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

func TestRepliesQueryValidation(t *testing.T) {
	s := startStub(t, nil)
	for _, q := range []string{"", "?chat_id=c&after=-1", "?chat_id=c&wait=600", "?chat_id=c&wait=x"} {
		resp, err := http.Get(s.base + "/feishu/replies" + q)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, q)
	}
}

func TestSendWithoutStartOrChatFails(t *testing.T) {
	ch, err := feishustub.New(feishustub.DefaultConfig(), bus.New(1), nil)
	require.NoError(t, err)
	assert.Error(t, ch.Send(context.Background(), bus.OutboundMessage{ChatID: "c"}))
	s := startStub(t, nil)
	assert.Error(t, s.ch.Send(context.Background(), bus.OutboundMessage{Content: "x"}))
}

func TestConfigValidation(t *testing.T) {
	cfg := feishustub.DefaultConfig()
	cfg.Listen, cfg.WebhookPath, cfg.Outbox = "", "events", ""
	err := cfg.Validate("channels.feishu")
	require.Error(t, err)
	for _, key := range []string{"channels.feishu.listen", "channels.feishu.webhookPath", "channels.feishu.outbox"} {
		assert.Contains(t, err.Error(), key)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	require.NoError(t, sc.Err(), fmt.Sprint(lines))
	return lines
}

func TestWebhookRetryOfRefusedEventIsNotADuplicate(t *testing.T) {
	s := startStub(t, nil)
	require.NoError(t, s.bus.CloseInbound()) // the host is shutting down
	for range 2 {
		code, out := s.post(t, messageEvent("ev-retry", "ou_user", "oc_chat", "hello"))
		require.Equal(t, http.StatusServiceUnavailable, code, "a retry must be tried again, not answered as a duplicate: %v", out)
	}
}

// TestRepliesLongPollManyTimes asks over HTTP for the replies after the
// first k+2 again and again while the bot sends three: every answer is
// the third reply and its next. (Whether the first replies arrive while
// the request waits is up to the scheduler here; outbox_test.go's
// TestAwaitWaitsForAReplyPastAfter makes sure of it.)
func TestRepliesLongPollManyTimes(t *testing.T) {
	s := startStub(t, nil)
	type result struct {
		Replies []feishustub.Reply `json:"replies"`
		Next    int                `json:"next"`
		err     error
	}
	ctx := testkit.Ctx(t)
	for round := range 20 {
		after := 3 * round
		got := make(chan result, 1)
		go func() {
			var r result
			req, err := http.NewRequestWithContext(ctx, http.MethodGet,
				s.base+"/feishu/replies?chat_id=oc_poll&after="+strconv.Itoa(after+2)+"&wait=30", nil)
			if err == nil {
				var resp *http.Response
				if resp, err = http.DefaultClient.Do(req); err == nil {
					err = json.NewDecoder(resp.Body).Decode(&r)
					resp.Body.Close()
				}
			}
			r.err = err
			got <- r
		}()
		for i := range 3 {
			text := fmt.Sprintf("round %d reply %d", round, i+1)
			require.NoError(t, s.ch.Send(ctx, bus.OutboundMessage{Channel: "feishu", ChatID: "oc_poll", Content: text}))
		}
		r := <-got
		require.NoError(t, r.err)
		require.Len(t, r.Replies, 1, "round %d: %+v", round, r.Replies)
		assert.Equal(t, fmt.Sprintf("round %d reply 3", round), r.Replies[0].Content)
		assert.Equal(t, after+3, r.Next)
	}
}

// TestReadmeLogsNoTextAtInfo: the log lines the README shows at INFO
// carry no message text, as the stub and the loop log it (text only at
// debug).
func TestReadmeLogsNoTextAtInfo(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	infos := 0
	for line := range strings.SplitSeq(string(readme), "\n") {
		if !strings.Contains(line, "level=INFO") {
			continue
		}
		infos++
		for _, key := range []string{" text=", " content=", " args=", " result="} {
			assert.NotContains(t, line, key, "README.md shows message text at INFO")
		}
	}
	assert.Positive(t, infos, "README.md shows the logs")
}
