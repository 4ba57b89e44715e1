package telegram

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/channels"
)

// maxUpdateBytes caps a webhook post's body.
const maxUpdateBytes = 1 << 20

// secretHeader carries the webhook's secret token on Telegram's posts.
const secretHeader = "X-Telegram-Bot-Api-Secret-Token"

// startWebhook listens on webhookListenHost:webhookListenPort, serves
// webhookPath, and tells Telegram to post there (setWebhook with the
// public webhookUrl and the secret token). A refusal of setWebhook is an
// error naming the key; a network failure is retried in the background.
// c.mu is held.
//
// The library's WebhookHandler is not used: it answers Telegram 200
// before the update is handled (and even for a wrong secret token), so
// an update could be lost; serveUpdate answers 200 only once the message
// is journaled.
func (c *Channel) startWebhook(ctx, run context.Context) error {
	var lc net.ListenConfig
	addr := net.JoinHostPort(c.cfg.WebhookListenHost, strconv.Itoa(c.cfg.WebhookListenPort))
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("%s.webhookListenPort: %w", keyPath, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+c.cfg.WebhookPath, c.serveUpdate)
	c.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	c.addr = ln.Addr()
	srv := c.srv
	c.done.Go(func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			c.Logger().Error("telegram webhook server stopped", "err", err)
		}
	})
	c.Logger().Info("telegram webhook listening", "addr", ln.Addr().String(), "path", c.cfg.WebhookPath)
	err = c.setWebhook(ctx)
	switch {
	case err == nil:
		return nil
	case channels.IsTemporary(err) && ctx.Err() == nil:
		c.Logger().Warn("telegram setWebhook failed; trying again in the background", "err", err)
		c.done.Go(func() {
			if _, err := (channels.Retry{Attempts: math.MaxInt, Backoff: time.Second, MaxBackoff: 5 * time.Minute}).Do(run, c.setWebhook, nil); err != nil && run.Err() == nil {
				c.Logger().Error("telegram setWebhook failed; Telegram does not post updates here", "err", err)
			}
		})
		return nil
	}
	_ = srv.Close()
	c.srv, c.addr = nil, nil
	if !channels.IsTemporary(err) {
		return fmt.Errorf("%s.webhookUrl: %w", keyPath, err)
	}
	return err
}

// setWebhook tells Telegram where to post updates.
func (c *Channel) setWebhook(ctx context.Context) error {
	_, err := c.bot.SetWebhook(ctx, &bot.SetWebhookParams{URL: c.cfg.WebhookURL, SecretToken: c.cfg.WebhookSecretToken.Reveal(),
		MaxConnections: c.cfg.WebhookMaxConnections, AllowedUpdates: []string{"message"}})
	if err = c.apiError("setWebhook", err); err == nil {
		c.Logger().Info("telegram webhook set", "url", c.cfg.WebhookURL)
	}
	return err
}

// serveUpdate takes one update Telegram posts: a post without the secret
// token is refused (403), and the update is answered 200 only once it is
// journaled (or not for the agent); any failure answers 5xx, and Telegram
// posts it again.
func (c *Channel) serveUpdate(w http.ResponseWriter, r *http.Request) {
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(secretHeader)), []byte(c.cfg.WebhookSecretToken.Reveal())) != 1 {
		c.Logger().Warn("telegram webhook post refused: wrong secret token", "remote", r.RemoteAddr)
		http.Error(w, "wrong secret token", http.StatusForbidden)
		return
	}
	if !c.isReceiving() {
		http.Error(w, "not receiving; post again later", http.StatusServiceUnavailable)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpdateBytes))
	if err != nil {
		http.Error(w, "body unreadable or too large", http.StatusBadRequest)
		return
	}
	var u models.Update
	if err := json.Unmarshal(body, &u); err != nil {
		http.Error(w, "not an update", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	receive := c.receive
	c.mu.Unlock()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(receive, cancel)() // Stop ends a handling that waits (a full bus)
	if err := c.take(ctx, &u); err != nil {
		c.Logger().Warn("telegram update not taken; Telegram posts it again", "update_id", u.ID, "err", err)
		http.Error(w, "not taken; post again later", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}
