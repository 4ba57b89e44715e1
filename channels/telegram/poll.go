package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/channels"
)

// Long polling, and why it is not the library's: go-telegram/bot's
// Bot.Start asks Telegram for the next updates (getUpdates with the
// offset past those it has) while its handlers still run, and that offset
// is what tells Telegram an update was received: a crash then loses it.
// Here the offset moves past an update only once take returned, that is
// once the message is in the journal (or was not for the agent): a
// SIGKILL at any point loses nothing, and an update Telegram returns
// again (the offset did not reach it) is found in the journal and taken
// as a repeat.

// maxUpdatesBody caps a getUpdates answer (100 updates).
const maxUpdatesBody = 32 << 20

// pollRetry paces the long poll after a failure: from half a second up to
// a minute, or the wait Telegram asks for.
var pollRetry = channels.Retry{Backoff: 500 * time.Millisecond, MaxBackoff: time.Minute, MaxServerWait: time.Hour}

// poll takes updates until ctx ends, then tells Telegram which it took.
func (c *Channel) poll(ctx context.Context) {
	// A webhook set earlier would make every getUpdates a conflict.
	if _, err := c.bot.DeleteWebhook(ctx, &bot.DeleteWebhookParams{}); err != nil && ctx.Err() == nil {
		c.Logger().Warn("telegram deleteWebhook failed; getUpdates may be refused while a webhook is set",
			"err", c.apiError("deleteWebhook", err))
	}
	var offset int64
	fails := 0
	for ctx.Err() == nil {
		updates, err := c.getUpdates(ctx, offset, c.cfg.PollTimeout, 100)
		for _, u := range updates {
			if err = c.take(ctx, u); err != nil {
				break
			}
			offset = u.ID + 1
		}
		if err == nil {
			fails = 0
			continue
		}
		if ctx.Err() != nil {
			break
		}
		fails++
		wait, _ := pollRetry.Wait(fails, channels.Temporary(err))
		c.Logger().Warn("telegram updates not taken; asking again", "err", err, "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	c.confirm(offset)
}

// confirm tells Telegram that the updates below offset were taken, so
// that the next start does not get them again (it would take them as
// repeats, but need not).
func (c *Channel) confirm(offset int64) {
	if offset == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.getUpdates(ctx, offset, 0, 1); err != nil {
		c.Logger().Debug("telegram: the last offset not confirmed; the next start takes those updates as repeats", "err", err)
	}
}

// updatesAnswer is Telegram's answer to getUpdates.
type updatesAnswer struct {
	OK          bool             `json:"ok"`
	Result      []*models.Update `json:"result"`
	ErrorCode   int              `json:"error_code"`
	Description string           `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// getUpdates asks Telegram for the updates from offset on (a positive
// offset confirms those below it), waiting up to timeout for one. Errors
// are the library's, through apiError.
func (c *Channel) getUpdates(ctx context.Context, offset int64, timeout time.Duration, limit int) ([]*models.Update, error) {
	body, _ := json.Marshal(map[string]any{"offset": offset, "limit": limit, "timeout": int(timeout.Seconds()),
		"allowed_updates": []string{"message"}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.baseURL()+"/bot"+c.cfg.Token.Reveal()+"/getUpdates", bytes.NewReader(body))
	if err != nil {
		return nil, c.apiError("getUpdates", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.poller.Do(req)
	if err != nil {
		return nil, c.apiError("getUpdates", err)
	}
	defer resp.Body.Close()
	var a updatesAnswer
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxUpdatesBody)).Decode(&a); err != nil {
		return nil, c.apiError("getUpdates", fmt.Errorf("HTTP %d, an answer that is not Telegram's: %w", resp.StatusCode, err))
	}
	if a.OK {
		return a.Result, nil
	}
	return nil, c.apiError("getUpdates", answerError(a))
}

// answerError is the library's error for a failed call, as its own calls
// return them, so that apiError treats getUpdates as every other call.
func answerError(a updatesAnswer) error {
	switch a.ErrorCode {
	case http.StatusTooManyRequests:
		return &bot.TooManyRequestsError{Message: fmt.Sprintf("%s, %s", bot.ErrorTooManyRequests, a.Description), RetryAfter: a.Parameters.RetryAfter}
	case http.StatusUnauthorized:
		return fmt.Errorf("%w, %s", bot.ErrorUnauthorized, a.Description)
	case http.StatusForbidden:
		return fmt.Errorf("%w, %s", bot.ErrorForbidden, a.Description)
	case http.StatusNotFound:
		return fmt.Errorf("%w, %s", bot.ErrorNotFound, a.Description)
	case http.StatusConflict:
		return fmt.Errorf("%w, %s", bot.ErrorConflict, a.Description)
	case http.StatusBadRequest:
		return fmt.Errorf("%w, %s", bot.ErrorBadRequest, a.Description)
	}
	return fmt.Errorf("error response from telegram for method getUpdates, %d %s", a.ErrorCode, a.Description)
}
