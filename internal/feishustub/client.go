package feishustub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// This file is the stub's client side, for demos and tests: the events a
// Feishu server would post, and the replies endpoint the stub offers.

// MessageEvent returns an im.message.receive_v1 event (Feishu's schema 2.0,
// as the stub reads it) carrying text from user in chat.
func MessageEvent(eventID, user, chat, messageID, text string, now time.Time) []byte {
	content, _ := json.Marshal(map[string]string{"text": text})
	ms := fmt.Sprint(now.UnixMilli())
	ev := map[string]any{
		"schema": "2.0",
		"header": map[string]any{"event_id": eventID, "event_type": EventTypeMessage,
			"create_time": ms, "app_id": "cli_switchboard_demo"},
		"event": map[string]any{
			"sender": map[string]any{"sender_id": map[string]any{"open_id": user}, "sender_type": "user"},
			"message": map[string]any{"message_id": messageID, "chat_id": chat, "chat_type": "p2p",
				"message_type": "text", "content": string(content), "create_time": ms},
		},
	}
	data, _ := json.Marshal(ev) // maps of strings always encode
	return data
}

// PostEvent posts an event to the webhook and checks that it was taken.
func PostEvent(ctx context.Context, webhook string, event []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, webhook, bytes.NewReader(event))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("post to the webhook %s: %w", webhook, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the webhook %s answered %s: %s", webhook, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

// RepliesURL returns the stub's replies endpoint for a chat, beside the
// webhook.
func RepliesURL(webhook, chat string, after int, wait time.Duration) string {
	u, err := url.Parse(webhook)
	if err != nil {
		return ""
	}
	u.Path = "/feishu/replies"
	u.RawQuery = url.Values{"chat_id": {chat}, "after": {fmt.Sprint(after)},
		"wait": {fmt.Sprint(wait.Seconds())}}.Encode()
	return u.String()
}

// NextReplies asks the stub for the chat's replies after the first n,
// waiting up to wait for one to arrive.
func NextReplies(ctx context.Context, webhook, chat string, n int, wait time.Duration) ([]Reply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, RepliesURL(webhook, chat, n, wait), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("read the chat's replies: %w", err)
	}
	defer resp.Body.Close()
	var body struct {
		Replies []Reply `json:"replies"`
		Error   string  `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("read the chat's replies: %s: %w", resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("read the chat's replies: %s: %s", resp.Status, body.Error)
	}
	return body.Replies, nil
}
