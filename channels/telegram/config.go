package telegram

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

// ChannelName is the channel's type and name.
const ChannelName = "telegram"

// The modes: how updates reach the channel.
const (
	// ModePolling asks Telegram for updates (getUpdates, long polling).
	ModePolling = "polling"
	// ModeWebhook receives them on an HTTPS endpoint Telegram posts to.
	ModeWebhook = "webhook"
)

// Config is the channels.telegram section. The keys up to
// WebhookMaxConnections are nanobot's (its connectionPoolSize,
// poolTimeout, streaming, inlineKeyboards, richMessages and
// streamEditInterval are accepted and ignored); the others are
// switchboard's.
type Config struct {
	Enabled bool `json:"enabled"`
	// Token is the bot's token from @BotFather ("123456:ABC...").
	Token channels.Secret `json:"token"`
	// AllowFrom lists who may talk to the bot: user ids or usernames
	// (with or without "@"), as nanobot matches them; ["*"] allows
	// everyone, and the empty list (the default, as nanobot's) no one.
	AllowFrom []string `json:"allowFrom"`
	// Proxy is an HTTP or SOCKS5 proxy URL for every call to Telegram
	// ("http://127.0.0.1:7890", "socks5://user:pass@host:1080"); empty:
	// the environment's (HTTPS_PROXY).
	Proxy channels.Secret `json:"proxy"`
	// ReplyToMessage makes answers quote the message they answer.
	ReplyToMessage bool `json:"replyToMessage"`
	// ReactEmoji is the reaction put on a message while it is worked on
	// (default "👀", as nanobot's; "" for none). The "typing" action is
	// shown as well.
	ReactEmoji string `json:"reactEmoji"`
	// GroupPolicy says which group messages are taken: "mention" (the
	// default: those that mention the bot or answer it) or "open" (all).
	GroupPolicy string `json:"groupPolicy"`
	// Mode is ModePolling (the default) or ModeWebhook.
	Mode string `json:"mode"`
	// WebhookURL is the public HTTPS URL Telegram posts updates to;
	// required in webhook mode. A reverse proxy passes them on to
	// WebhookListenHost:WebhookListenPort at WebhookPath.
	WebhookURL string `json:"webhookUrl"`
	// WebhookListenHost and WebhookListenPort are where the channel
	// listens in webhook mode (defaults 127.0.0.1 and 8081; port 0 picks
	// a free one).
	WebhookListenHost string `json:"webhookListenHost"`
	WebhookListenPort int    `json:"webhookListenPort"`
	// WebhookPath is the path the channel serves (default "/telegram").
	WebhookPath string `json:"webhookPath"`
	// WebhookSecretToken is sent by Telegram with every update
	// (X-Telegram-Bot-Api-Secret-Token); posts without it are refused.
	// Required in webhook mode: 1 to 256 of A-Z, a-z, 0-9, _ and -.
	WebhookSecretToken channels.Secret `json:"webhookSecretToken"`
	// WebhookMaxConnections is how many updates Telegram posts at once
	// (default 4, 1 to 100).
	WebhookMaxConnections int `json:"webhookMaxConnections"`

	// BaseURL is the Bot API server (default https://api.telegram.org;
	// a local Bot API server, a test server).
	BaseURL string `json:"baseUrl"`
	// PollTimeout is how long a getUpdates call waits for an update, in
	// seconds (default 30, at most 50).
	PollTimeout time.Duration `json:"pollTimeout"`
	// Journal is the file that keeps each message from the moment it is
	// taken until it is answered, and the ids answered lately (default
	// telegram-journal.jsonl in the agent's workspace).
	Journal string `json:"journal"`
	// MediaDir is where photos, documents and voice notes are downloaded
	// (default media/telegram in the agent's workspace).
	MediaDir string `json:"mediaDir"`
}

// DefaultConfig returns the defaults of the section.
func DefaultConfig() Config {
	return Config{
		ReactEmoji:            "👀",
		GroupPolicy:           "mention",
		Mode:                  ModePolling,
		WebhookListenHost:     "127.0.0.1",
		WebhookListenPort:     8081,
		WebhookPath:           "/telegram",
		WebhookMaxConnections: 4,
		PollTimeout:           30 * time.Second,
	}
}

// The shapes Telegram gives its tokens and wants of a webhook's secret.
var (
	tokenShape  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+:[A-Za-z0-9_-]+$`) })
	secretShape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`) })
)

// Validate checks the values; each error is a *config.KeyError naming
// its key under path ("channels.telegram"). Keys a running channel needs
// (the token, a non-empty allowFrom, the webhook's URL and secret) are
// required only when the section is enabled.
func (c *Config) Validate(path string) error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &config.KeyError{Path: path + "." + key, Msg: fmt.Sprintf(format, args...), Err: config.ErrInvalidValue})
	}
	oneOf := func(key, v string, allowed ...string) {
		if !slices.Contains(allowed, v) {
			bad(key, "want one of %q, got %q", allowed, v)
		}
	}
	oneOf("groupPolicy", c.GroupPolicy, "mention", "open")
	oneOf("mode", c.Mode, ModePolling, ModeWebhook)
	if c.Proxy != "" {
		if u, err := url.Parse(c.Proxy.Reveal()); err != nil || u.Host == "" ||
			!slices.Contains([]string{"http", "https", "socks5", "socks5h"}, strings.ToLower(u.Scheme)) {
			bad("proxy", "want an http(s):// or socks5:// URL with a host")
		}
	}
	if c.BaseURL != "" {
		if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("baseUrl", "want an http(s) URL, got %q", c.BaseURL)
		}
	}
	if c.PollTimeout < time.Second || c.PollTimeout > 50*time.Second {
		bad("pollTimeout", "want 1 to 50 seconds, got %v", c.PollTimeout.Seconds())
	}
	if c.WebhookListenPort < 0 || c.WebhookListenPort > 65535 {
		bad("webhookListenPort", "want a port, 0 to 65535, got %d", c.WebhookListenPort)
	}
	if !strings.HasPrefix(c.WebhookPath, "/") {
		bad("webhookPath", "want a path starting with /, got %q", c.WebhookPath)
	}
	if c.WebhookMaxConnections < 1 || c.WebhookMaxConnections > 100 {
		bad("webhookMaxConnections", "want 1 to 100, got %d", c.WebhookMaxConnections)
	}
	if c.Mode == ModeWebhook { // as nanobot: the webhook's keys are checked in webhook mode only
		if c.WebhookSecretToken != "" && !secretShape().MatchString(c.WebhookSecretToken.Reveal()) {
			bad("webhookSecretToken", "want 1 to 256 of A-Z, a-z, 0-9, _ and -")
		}
		if u, err := url.Parse(c.WebhookURL); c.WebhookURL != "" && (err != nil || u.Scheme != "https" || u.Host == "") {
			bad("webhookUrl", "want the public https:// URL Telegram posts to, got %q", c.WebhookURL)
		}
	}
	if !c.Enabled {
		return errors.Join(errs...)
	}
	switch {
	case c.Token == "":
		bad("token", "required: the bot's token (talk to @BotFather on Telegram: /newbot, or /token for an existing bot)")
	case !tokenShape().MatchString(c.Token.Reveal()):
		bad("token", "not a bot token: want <bot id>:<secret> as @BotFather gives it")
	}
	if len(c.AllowFrom) == 0 {
		bad("allowFrom", `empty list denies every sender; list the allowed user ids or usernames, or ["*"] to allow all`)
	}
	if c.Mode == ModeWebhook {
		if c.WebhookURL == "" {
			bad("webhookUrl", "required in webhook mode: the public https:// URL Telegram posts updates to")
		}
		if c.WebhookSecretToken == "" {
			bad("webhookSecretToken", "required in webhook mode, so that posts not from Telegram are refused")
		}
	}
	return errors.Join(errs...)
}

// DecodeConfig decodes and validates a channels.telegram section.
func DecodeConfig(section config.Section) (Config, error) {
	cfg := DefaultConfig()
	// Both, so that one look at the errors shows them all: a key
	// misspelt and a required key missing.
	if err := errors.Join(section.Decode(&cfg), cfg.Validate(section.Path)); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// baseURL is the Bot API server's address.
func (c *Config) baseURL() string {
	if c.BaseURL != "" {
		return strings.TrimRight(c.BaseURL, "/")
	}
	return "https://api.telegram.org"
}
