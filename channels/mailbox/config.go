package mailbox

import (
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
)

// Config is the channels.mailbox section: seed 001's keys with its
// defaults, plus switchboard's own. Durations are seconds, as nanobot
// writes pollInterval.
type Config struct {
	Enabled            bool     `json:"enabled"`
	AgentID            string   `json:"agentId"`
	Description        string   `json:"description"`
	Capabilities       []string `json:"capabilities"`
	AllowFrom          []string `json:"allowFrom"`
	MaxConcurrentTasks int      `json:"maxConcurrentTasks"`
	PollInterval       float64  `json:"pollInterval"`
	MailboxesRoot      string   `json:"mailboxesRoot"`

	// Roles are broader labels than capabilities, for discovery.
	Roles []string `json:"roles"`
	// HeartbeatInterval is how often the card's last_heartbeat is renewed.
	HeartbeatInterval float64 `json:"heartbeatInterval"`
	// OfflineAfter is how old a heartbeat may be before its agent counts
	// as offline.
	OfflineAfter float64 `json:"offlineAfter"`
	// DefaultTTL is the hop budget of a new message.
	DefaultTTL int `json:"defaultTtl"`
	// MaxMessageBytes caps one message; larger input is set aside unread.
	MaxMessageBytes int64 `json:"maxMessageBytes"`
	// MaxThreadHops caps the replies exchanged in one thread.
	MaxThreadHops int `json:"maxThreadHops"`
	// TaskTimeout fails an accepted task that has no deadline of its own
	// after this many seconds, so a lost task does not hold capacity.
	TaskTimeout float64 `json:"taskTimeout"`
	// Fsync makes every delivery durable against a machine crash.
	Fsync bool `json:"fsync"`
	// MaxDeliver is how many times the folder store hands out a message
	// that is never acknowledged (its receiver crashes on it) before it
	// sets it aside in rejected/ (NATS: channels.mailbox.nats.maxDeliver).
	MaxDeliver int `json:"maxDeliver"`
	// Limits are the guard rails against storms: rate limits, circuit
	// breakers and the depth of task trees (docs/guardrails.md).
	Limits limits.Config `json:"limits"`
	// Backend names the store: "fs" (default) or another registered with
	// store.Register, such as "nats".
	Backend string `json:"backend"`
	// Stores are the sections of the registered backends found in the
	// config (channels.mailbox.nats, ...), by backend name. Each backend
	// decodes and validates its own (see DecodeConfig).
	Stores map[string]config.Section `json:"-"`

	// Conversations holds the keys of threads, replies owed, addressing,
	// the audit log and retention.
	Conversations
	// Work holds the keys of budgets and of work that is stuck or lost.
	Work
}

// DefaultConfig returns the defaults: allowFrom ["*"], 3 concurrent tasks,
// pollInterval 5, root ~/.nanobot/mailboxes, heartbeat every 5 s, offline
// after 30 s, ttl 3, 1 MiB messages, 20 hops per thread, tasks time out
// after 30 minutes, fsync on, maxDeliver 5, backend "fs",
// limits.DefaultConfig and DefaultConversations.
func DefaultConfig() Config {
	return Config{
		AllowFrom:          []string{"*"},
		MaxConcurrentTasks: 3,
		PollInterval:       5,
		MailboxesRoot:      "~/.nanobot/mailboxes",
		HeartbeatInterval:  5,
		OfflineAfter:       30,
		DefaultTTL:         envelope.DefaultTTL,
		MaxMessageBytes:    1 << 20,
		MaxThreadHops:      20,
		TaskTimeout:        1800,
		Fsync:              true,
		MaxDeliver:         5,
		Limits:             limits.DefaultConfig(),
		Backend:            "fs",
		Conversations:      DefaultConversations(),
		Work:               DefaultWork(),
	}
}

// Validate checks the values; errors name the key under prefix (for
// example "channels.mailbox").
func (c *Config) Validate(prefix string) error {
	key := func(name string) string { return prefix + "." + name }
	var errs []error
	if c.AgentID == "" {
		errs = append(errs, fmt.Errorf("%s: required: the id other agents send to", key("agentId")))
	} else if err := envelope.ValidateAgentID(c.AgentID); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", key("agentId"), err))
	}
	if c.MaxConcurrentTasks < 1 {
		errs = append(errs, fmt.Errorf("%s: want at least 1, got %d", key("maxConcurrentTasks"), c.MaxConcurrentTasks))
	}
	errs = append(errs, c.validateDurations(key)...)
	if c.OfflineAfter <= c.HeartbeatInterval {
		errs = append(errs, fmt.Errorf("%s: want more than heartbeatInterval (%v), got %v",
			key("offlineAfter"), c.HeartbeatInterval, c.OfflineAfter))
	}
	if c.DefaultTTL < 1 {
		errs = append(errs, fmt.Errorf("%s: want at least 1, got %d", key("defaultTtl"), c.DefaultTTL))
	}
	if c.MaxMessageBytes < 1024 {
		errs = append(errs, fmt.Errorf("%s: want at least 1024, got %d", key("maxMessageBytes"), c.MaxMessageBytes))
	}
	if c.MaxThreadHops < 1 {
		errs = append(errs, fmt.Errorf("%s: want at least 1, got %d", key("maxThreadHops"), c.MaxThreadHops))
	}
	if c.MaxDeliver < 1 {
		errs = append(errs, fmt.Errorf("%s: want at least 1, got %d", key("maxDeliver"), c.MaxDeliver))
	}
	if err := c.Limits.Validate(key("limits")); err != nil {
		errs = append(errs, err)
	}
	if c.MailboxesRoot == "" {
		errs = append(errs, fmt.Errorf("%s: required", key("mailboxesRoot")))
	}
	errs = append(errs, c.Conversations.validate(key)...)
	errs = append(errs, c.Work.validate(key)...)
	if !store.Known(c.Backend) {
		errs = append(errs, fmt.Errorf("%s: unknown backend %q (known: %v; forgotten import?)",
			key("backend"), c.Backend, store.Names()))
	}
	return errors.Join(errs...)
}

// StoreConfig returns what the backend c.Backend is opened with: the
// storage keys of the section and the backend's own section.
func (c *Config) StoreConfig() store.Config {
	sec, ok := c.Stores[c.Backend]
	if !ok {
		sec = config.Section{Path: "channels.mailbox." + c.Backend}
	}
	return store.Config{
		AgentID:         c.AgentID,
		Root:            c.MailboxesRoot,
		MaxMessageBytes: c.MaxMessageBytes,
		Fsync:           c.Fsync,
		MaxDeliver:      c.MaxDeliver,
		PollInterval:    seconds(c.PollInterval),
		OfflineAfter:    seconds(c.OfflineAfter),
		AuditLog:        c.AuditLog,
		AuditMaxBytes:   c.AuditMaxBytes,
		AuditKeep:       c.AuditKeep,
		Section:         sec,
	}
}

// stopTimeout bounds what the channel does on its own (a task that
// expires) when nobody waits for it.
const stopTimeout = 10 * time.Second

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
