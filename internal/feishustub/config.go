package feishustub

import (
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/config"
)

// Config is the channels.feishu section. appId, appSecret,
// verificationToken and allowFrom are nanobot's keys for Feishu; listen,
// webhookPath and outbox are the stub's own.
type Config struct {
	Enabled           bool     `json:"enabled"`
	AppID             string   `json:"appId"`
	AppSecret         string   `json:"appSecret"`
	EncryptKey        string   `json:"encryptKey"`
	VerificationToken string   `json:"verificationToken"`
	AllowFrom         []string `json:"allowFrom"`
	// Listen is the webhook's address (default 127.0.0.1:18790).
	Listen string `json:"listen"`
	// WebhookPath is where events are posted (default /feishu/events).
	WebhookPath string `json:"webhookPath"`
	// Outbox is the JSON-lines file replies are appended to (default
	// ~/.nanobot/feishu-outbox.jsonl).
	Outbox string `json:"outbox"`
	// Journal is the file where the stub keeps each message from the
	// moment it answers the webhook 200 until the agent has answered it
	// (default: feishu-journal.jsonl under agents.defaults.workspace), so
	// that a crash or a stop loses no message Feishu was told was taken.
	Journal string `json:"journal"`
}

// DefaultConfig returns the defaults; allowFrom is ["*"].
func DefaultConfig() Config {
	return Config{
		AllowFrom:   []string{"*"},
		Listen:      "127.0.0.1:18790",
		WebhookPath: "/feishu/events",
		Outbox:      "~/.nanobot/feishu-outbox.jsonl",
	}
}

// Validate checks the values; errors name the key under prefix.
func (c *Config) Validate(prefix string) error {
	var errs []error
	if c.Listen == "" {
		errs = append(errs, fmt.Errorf("%s.listen: required (host:port)", prefix))
	}
	if !strings.HasPrefix(c.WebhookPath, "/") {
		errs = append(errs, fmt.Errorf("%s.webhookPath: want a path starting with /, got %q", prefix, c.WebhookPath))
	}
	if c.Outbox == "" {
		errs = append(errs, fmt.Errorf("%s.outbox: required", prefix))
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
