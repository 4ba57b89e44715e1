package telegram

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-telegram/bot"

	"github.com/switchboard-dev/switchboard/channels"
)

// ErrToken is returned when Telegram refuses the bot's token.
var ErrToken = errors.New("telegram refused the bot token")

// apiError turns the error of a call to Telegram (op names it) into the
// channel's: temporary (channels.Temporary) for what may work later (the
// network, a 5xx, a conflict with another poller), with the wait Telegram
// asks for on a 429 (channels.RetryAfter); permanent otherwise, naming the
// key to fix when there is one. The token never appears in it.
func (c *Channel) apiError(op string, err error) error {
	if err == nil {
		return nil
	}
	err = redact(err, c.cfg.Token.Reveal())
	var tooMany *bot.TooManyRequestsError
	switch {
	case errors.As(err, &tooMany):
		return channels.RetryAfter(fmt.Errorf("telegram %s: %w", op, err), time.Duration(tooMany.RetryAfter)*time.Second)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("telegram %s: %w", op, err)
	case errors.Is(err, bot.ErrorUnauthorized), errors.Is(err, bot.ErrorNotFound) && (op == "getMe" || op == "getUpdates"):
		return fmt.Errorf("%s.token: %w (%v); copy the token @BotFather gave (/token in a chat with @BotFather)", keyPath, ErrToken, err)
	case errors.Is(err, bot.ErrorForbidden):
		return fmt.Errorf("telegram %s: %w; the user blocked the bot, or the bot is not in the chat", op, err)
	case errors.Is(err, bot.ErrorBadRequest), errors.Is(err, bot.ErrorNotFound):
		return fmt.Errorf("telegram %s: %w", op, err)
	}
	var migrate *bot.MigrateError
	if errors.As(err, &migrate) {
		return fmt.Errorf("telegram %s: %w", op, err)
	}
	// The network, a server error, a conflict (another getUpdates, a
	// webhook set meanwhile): worth another try.
	return channels.Temporary(fmt.Errorf("telegram %s: %w", op, err))
}

// redact removes token from err: the URLs of Telegram's calls hold it,
// and *url.Error names the URL.
func redact(err error, token string) error {
	if token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return redactedError{err: err, msg: strings.ReplaceAll(err.Error(), token, "[redacted]")}
}

// redactedError is an error whose message has the token removed; what it
// wraps stays reachable (errors.Is, errors.As), for the code that
// classifies it.
type redactedError struct {
	err error
	msg string
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// isParseError reports whether Telegram refused a message's markup (or
// found nothing to show once it was parsed): the text is then sent again
// as plain text.
func isParseError(err error) bool {
	if !errors.Is(err, bot.ErrorBadRequest) {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "can't parse entities") || strings.Contains(msg, "message text is empty")
}

// migratedTo returns the chat a group became (a supergroup) when err says
// so, or 0.
func migratedTo(err error) int64 {
	var migrate *bot.MigrateError
	if errors.As(err, &migrate) {
		return int64(migrate.MigrateToChatID)
	}
	return 0
}
