package telegramfake

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// Deliver posts update id to a bot's webhook at url as Telegram does: its
// JSON, with the secret token in X-Telegram-Bot-Api-Secret-Token (none
// when secret is ""). It returns the status and body of the bot's answer;
// Telegram delivers an update again until it gets a 2xx.
func (s *Server) Deliver(ctx context.Context, url string, id int64, secret string) (int, []byte, error) {
	body := s.Update(id)
	if body == nil {
		return 0, nil, fmt.Errorf("telegramfake: no update %d", id)
	}
	return Post(ctx, url, body, secret)
}

// Post posts body to url as Telegram posts an update to a webhook.
func Post(ctx context.Context, url string, body []byte, secret string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}
