package feishu

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	larkevent "github.com/larksuite/oapi-sdk-go/v3/event"
)

// maxEventBytes caps a webhook request's body.
const maxEventBytes = 1 << 20

// startWebhook listens on cfg.Listen and serves cfg.WebhookPath. c.mu is
// held.
func (c *Channel) startWebhook(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", c.cfg.Listen)
	if err != nil {
		return fmt.Errorf("%s.listen: %w", keyPath, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+c.cfg.WebhookPath, c.serveEvent)
	c.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	c.addr = ln.Addr()
	srv := c.srv
	c.done.Go(func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			c.Logger().Error("feishu webhook server stopped", "err", err)
		}
	})
	c.Logger().Info("feishu webhook listening", "addr", ln.Addr().String(), "path", c.cfg.WebhookPath)
	return nil
}

// serveEvent hands a posted event to the SDK's dispatcher, which answers
// the url_verification challenge (checking the verification token),
// decrypts an encrypted event and checks its signature (with encryptKey),
// and calls onMessage (which checks the token of the event).
func (c *Channel) serveEvent(w http.ResponseWriter, r *http.Request) {
	if !c.isReceiving() {
		http.Error(w, `{"msg":"not receiving; deliver again later"}`, http.StatusServiceUnavailable)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEventBytes))
	if err != nil {
		http.Error(w, `{"msg":"body unreadable or too large"}`, http.StatusBadRequest)
		return
	}
	resp := c.events.Handle(r.Context(), &larkevent.EventReq{Header: r.Header, Body: body, RequestURI: r.RequestURI})
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(resp.Body)
}
