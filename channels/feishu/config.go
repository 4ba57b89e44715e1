package feishu

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

// ChannelName is the channel's type and name.
const ChannelName = "feishu"

// The modes: how events reach the channel.
const (
	// ModeWebSocket receives events over Feishu's long connection.
	ModeWebSocket = "websocket"
	// ModeWebhook receives them on an HTTP endpoint Feishu posts to.
	ModeWebhook = "webhook"
)

// Config is the channels.feishu section. The keys up to Domain are
// nanobot's (its streaming, toolHintPrefix, instanceId, name and
// identityKey are accepted and ignored); the others are switchboard's.
type Config struct {
	Enabled bool `json:"enabled"`
	// AppID and AppSecret are the app's credentials (Feishu developer
	// console → the app → Credentials & Basic Info).
	AppID     string          `json:"appId"`
	AppSecret channels.Secret `json:"appSecret"`
	// EncryptKey and VerificationToken are the event subscription's
	// (Events & Callbacks → Encryption Strategy); the webhook mode checks
	// them.
	EncryptKey        channels.Secret `json:"encryptKey"`
	VerificationToken channels.Secret `json:"verificationToken"`
	// AllowFrom lists the open_ids that may talk to the bot; ["*"] allows
	// everyone, and the empty list (the default, as nanobot's) no one.
	AllowFrom []string `json:"allowFrom"`
	// ReactEmoji is the reaction put on a message while it is worked on
	// (default "THUMBSUP"; "" for none); DoneEmoji, when set, replaces it
	// once the message is answered.
	ReactEmoji string `json:"reactEmoji"`
	DoneEmoji  string `json:"doneEmoji"`
	// GroupPolicy says which group messages are taken: "mention" (the
	// default: those that @-mention the bot) or "open" (all).
	GroupPolicy string `json:"groupPolicy"`
	// ReplyToMessage makes answers in groups start a thread (a topic) on
	// the message answered.
	ReplyToMessage bool `json:"replyToMessage"`
	// TopicIsolation gives every topic of a group its own conversation
	// (default true); false makes the whole group one.
	TopicIsolation bool `json:"topicIsolation"`
	// Domain is "feishu" (open.feishu.cn, the default) or "lark"
	// (open.larksuite.com).
	Domain string `json:"domain"`

	// Mode is ModeWebSocket (the default) or ModeWebhook.
	Mode string `json:"mode"`
	// Listen is the webhook's address (default 127.0.0.1:18791); put a
	// TLS-terminating proxy with a public address in front of it.
	Listen string `json:"listen"`
	// WebhookPath is where Feishu posts events (default /feishu/events).
	WebhookPath string `json:"webhookPath"`
	// BaseURL replaces the open platform's address that Domain picks (a
	// proxy, a test server).
	BaseURL string `json:"baseUrl"`
	// Journal is the file that keeps each message from the moment Feishu
	// hears it was taken until it is answered, and the ids answered lately
	// (default feishu-journal.jsonl in the agent's workspace).
	Journal string `json:"journal"`
	// MediaDir is where attachments are downloaded (default media/feishu
	// in the agent's workspace).
	MediaDir string `json:"mediaDir"`
}

// DefaultConfig returns the defaults of the section.
func DefaultConfig() Config {
	return Config{
		ReactEmoji:     "THUMBSUP",
		GroupPolicy:    "mention",
		TopicIsolation: true,
		Domain:         "feishu",
		Mode:           ModeWebSocket,
		Listen:         "127.0.0.1:18791",
		WebhookPath:    "/feishu/events",
	}
}

// Validate checks the values; each error is a *config.KeyError naming
// its key under path ("channels.feishu"). Keys a running channel needs
// (appId, appSecret, a non-empty allowFrom, the webhook's token) are
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
	oneOf("domain", c.Domain, "feishu", "lark")
	oneOf("mode", c.Mode, ModeWebSocket, ModeWebhook)
	if c.BaseURL != "" {
		if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("baseUrl", "want an http(s) URL, got %q", c.BaseURL)
		}
	}
	if c.Mode == ModeWebhook {
		if c.Listen == "" {
			bad("listen", "required in webhook mode (host:port)")
		}
		if !strings.HasPrefix(c.WebhookPath, "/") {
			bad("webhookPath", "want a path starting with /, got %q", c.WebhookPath)
		}
	}
	if !c.Enabled {
		return errors.Join(errs...)
	}
	if c.AppID == "" {
		bad("appId", "required: the app's App ID (Feishu developer console → Credentials & Basic Info)")
	}
	if c.AppSecret == "" {
		bad("appSecret", "required: the app's App Secret (Feishu developer console → Credentials & Basic Info)")
	}
	if len(c.AllowFrom) == 0 {
		bad("allowFrom", `empty list denies every sender; list the allowed open_ids, or ["*"] to allow all`)
	}
	if c.Mode == ModeWebhook && c.VerificationToken == "" {
		bad("verificationToken", "required in webhook mode: the event subscription's Verification Token "+
			"(Events & Callbacks → Encryption Strategy), so that posts not from Feishu are refused")
	}
	return errors.Join(errs...)
}

// DecodeConfig decodes and validates a channels.feishu section.
func DecodeConfig(section config.Section) (Config, error) {
	cfg := DefaultConfig()
	if err := section.Decode(&cfg); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(section.Path); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// baseURL is the open platform's address.
func (c *Config) baseURL() string {
	switch {
	case c.BaseURL != "":
		return strings.TrimRight(c.BaseURL, "/")
	case c.Domain == "lark":
		return "https://open.larksuite.com"
	}
	return "https://open.feishu.cn"
}
