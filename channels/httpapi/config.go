package httpapi

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

// ChannelName is the channel's type and name.
const ChannelName = "http"

// keyPath is the key path of the section, the prefix of config errors.
const keyPath = "channels." + ChannelName

// Config is the channels.http section.
type Config struct {
	Enabled bool `json:"enabled"`
	// Listen is the address to serve (default 127.0.0.1:8900, nanobot's
	// API port).
	Listen string `json:"listen"`
	// APIKey is the bearer token every request but /health must carry;
	// required when Listen is not a loopback address.
	APIKey channels.Secret `json:"apiKey"`
	// AllowFrom lists the senders that may post (the sender of a native
	// message, the user of a completion; "api" when the request names
	// none); default ["*"].
	AllowFrom []string `json:"allowFrom"`
	// Model is the model id /v1/models lists and completions answer as
	// (default: channels.mailbox.agentId when set, else "switchboard").
	Model string `json:"model"`
	// WaitSeconds bounds how long a completion waits for its answers
	// (default 300); past it, a completion with no answer yet is a 504
	// (the message is taken and answered in its session later).
	WaitSeconds float64 `json:"waitSeconds"`
	// FollowTasks makes a completion wait, after the agent's answer, for
	// the final update of each task the agent delegated from the session
	// and include the answers to them (default true).
	FollowTasks bool `json:"followTasks"`
	// MaxBodyBytes caps a request's body (default 1 MiB).
	MaxBodyBytes int64 `json:"maxBodyBytes"`
	// Journal keeps each message from the moment it is taken until it is
	// answered, and the ids answered lately (default http-journal.jsonl
	// in the agent's workspace).
	Journal string `json:"journal"`
	// Answers keeps the sessions' answers (default http-answers.jsonl in
	// the agent's workspace).
	Answers string `json:"answers"`
}

// DefaultConfig returns the defaults of the section.
func DefaultConfig() Config {
	return Config{Listen: "127.0.0.1:8900", AllowFrom: []string{"*"}, WaitSeconds: 300, FollowTasks: true, MaxBodyBytes: 1 << 20}
}

// Validate checks the values; each error is a *config.KeyError naming
// its key under path.
func (c *Config) Validate(path string) error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &config.KeyError{Path: path + "." + key, Msg: fmt.Sprintf(format, args...), Err: config.ErrInvalidValue})
	}
	if msg := config.CheckListen(c.Listen); msg != "" || c.Listen == "" {
		bad("listen", "want host:port (127.0.0.1:8900), got %q", c.Listen)
	} else if c.APIKey == "" && !loopback(c.Listen) {
		bad("apiKey", "required when listen (%s) is not a loopback address: anyone who reaches it could talk to the agent; "+
			"set a long random token (openssl rand -hex 32), or listen on 127.0.0.1", c.Listen)
	}
	if !(c.WaitSeconds > 0 && c.WaitSeconds <= 86400) {
		bad("waitSeconds", "want seconds above 0, at most 86400, got %v", c.WaitSeconds)
	}
	if c.MaxBodyBytes < 1024 || c.MaxBodyBytes > 64<<20 {
		bad("maxBodyBytes", "want from 1024 to %d, got %d", 64<<20, c.MaxBodyBytes)
	}
	if c.Enabled && len(c.AllowFrom) == 0 {
		bad("allowFrom", `empty list denies every sender; leave it out, or ["*"]`)
	}
	if strings.ContainsFunc(c.Model, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		bad("model", "control characters in %q", c.Model)
	}
	return errors.Join(errs...)
}

// loopback reports whether listen's host is a loopback address or
// "localhost".
func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// DecodeConfig decodes and validates a channels.http section.
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
