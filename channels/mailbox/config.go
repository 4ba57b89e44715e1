package mailbox

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/escalate"
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
	// Signing holds the keys of message signatures (signing.go).
	Signing
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

// Conversations are the settings of threads, replies owed, addressing,
// the audit log and retention (docs/conversations.md). They are keys of
// the channels.mailbox section like the others; durations are seconds.
type Conversations struct {
	// AuditLog appends every event to <root>/manifest.jsonl.
	AuditLog bool `json:"auditLog"`
	// AuditMaxBytes rotates the audit log past this size.
	AuditMaxBytes int64 `json:"auditMaxBytes"`
	// AuditKeep is how many rotated audit files are kept.
	AuditKeep int `json:"auditKeep"`
	// ReplyTimeout is how long a request waits for its reply before the
	// sender is told it is overdue (unless the request sets its own
	// reply_by).
	ReplyTimeout float64 `json:"replyTimeout"`
	// MaxFanout caps the recipients of one send to all, a capability, a
	// role or a pattern.
	MaxFanout int `json:"maxFanout"`
	// ProcessedMaxAge and ProcessedMaxBytes bound processed/ (0: no bound).
	ProcessedMaxAge   float64 `json:"processedMaxAge"`
	ProcessedMaxBytes int64   `json:"processedMaxBytes"`
	// ArchiveMaxAge and ArchiveMaxBytes bound archive/ (0: no bound).
	ArchiveMaxAge   float64 `json:"archiveMaxAge"`
	ArchiveMaxBytes int64   `json:"archiveMaxBytes"`
	// PruneInterval is how often the running agent applies the bounds.
	PruneInterval float64 `json:"pruneInterval"`
	// OrphanAfter is how long an agent must be gone before doctor calls
	// its waiting messages orphans.
	OrphanAfter float64 `json:"orphanAfter"`
	// ArtifactsMaxBytes bounds the artifact store (0: no bound); what no
	// message needs any more goes at each prune (docs/conversations.md).
	ArtifactsMaxBytes int64 `json:"artifactsMaxBytes"`
}

// Day is a day in seconds, the unit of the configuration's durations.
const Day = 24 * 3600

// DefaultConversations returns the defaults: audit log on, rotated at
// 16 MiB keeping 4 files; replies due within an hour; at most 32
// recipients per send; processed/ kept 7 days and 256 MiB, archive/ 30
// days and 1 GiB, pruned hourly; agents gone 7 days leave orphans.
func DefaultConversations() Conversations {
	return Conversations{
		AuditLog:          true,
		AuditMaxBytes:     16 << 20,
		AuditKeep:         4,
		ReplyTimeout:      3600,
		MaxFanout:         32,
		ProcessedMaxAge:   7 * Day,
		ProcessedMaxBytes: 256 << 20,
		ArchiveMaxAge:     30 * Day,
		ArchiveMaxBytes:   1 << 30,
		PruneInterval:     3600,
		OrphanAfter:       7 * Day,
		ArtifactsMaxBytes: 4 << 30,
	}
}

// Work are the settings of budgets and of work that is stuck or lost
// (docs/guardrails.md). They are keys of the channels.mailbox section
// like the others; durations are seconds.
type Work struct {
	// AcceptTimeout is how long a delegated task may wait for its worker
	// to accept it: then it is offered to the next holder of the
	// capability it was sent for (any:, cap:), or the user is told.
	AcceptTimeout float64 `json:"acceptTimeout"`
	// Budget bounds the agent's model spending (channels.mailbox.budget).
	Budget Budget `json:"budget"`
	// Escalation is the levels stuck work climbs until someone decides
	// (channels.mailbox.escalation); none by default.
	Escalation escalate.Config `json:"escalation"`
}

// Budget is the channels.mailbox.budget section. Zero values set no bound.
type Budget struct {
	// TaskTokens is the token budget of a task delegated from a
	// conversation that has none (a user's chat); a task delegated from
	// inside a budgeted task carries what is left of that one.
	TaskTokens int64 `json:"taskTokens"`
	// TaskCost is the cost budget of such a task, counted at InputPrice
	// and OutputPrice.
	TaskCost float64 `json:"taskCost"`
	// DailyTokens caps the tokens the agent spends per day.
	DailyTokens int64 `json:"dailyTokens"`
	// InputPrice and OutputPrice are the cost of a million input and
	// output tokens of the agent's model.
	InputPrice  float64 `json:"inputPrice"`
	OutputPrice float64 `json:"outputPrice"`
}

// DefaultWork returns the defaults: a task must be accepted within 30
// seconds; no budget, no daily cap, no prices; no escalation.
func DefaultWork() Work { return Work{AcceptTimeout: 30, Escalation: escalate.DefaultConfig()} }

// DecodeConfig decodes (see DecodeSection) and validates a
// channels.mailbox section.
func DecodeConfig(section config.Section) (Config, error) {
	cfg, err := DecodeSection(section)
	if err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(section.Path); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// DecodeSection decodes a channels.mailbox section over DefaultConfig,
// strictly, without validating the values. A key that names a registered
// backend (channels.mailbox.nats) is that backend's own section: it is
// kept in Config.Stores for the backend to decode when the store is
// opened.
func DecodeSection(section config.Section) (Config, error) {
	cfg := DefaultConfig()
	stores := map[string]config.Section{}
	for _, name := range store.Names() {
		if _, present := section.Raw[name]; !present {
			continue
		}
		sub, ok := section.Sub(name)
		if !ok {
			return Config{}, fmt.Errorf("%s: want an object with the settings of the %q backend", sub.Path, name)
		}
		stores[name] = sub
	}
	if err := section.Without(slices.Collect(maps.Keys(stores))...).Decode(&cfg); err != nil {
		return Config{}, err
	}
	cfg.Stores = stores
	return cfg, nil
}

func init() { channels.RegisterChecker(ChannelName, Check) }

// checkAgent stands in for the agentId of a disabled section, which the
// command-line tools use without one (send --from names the sender).
const checkAgent = "switchboard"

// Check decodes and validates a channels.mailbox section as Factory does,
// without opening anything (a channels.Checker). A disabled section may
// leave agentId empty. A backend's own section (channels.mailbox.nats) is
// recorded as used: the backend decodes it when the store is opened.
func Check(section config.Section) error {
	cfg, err := DecodeSection(section)
	if err != nil {
		return err
	}
	for _, sub := range cfg.Stores {
		sub.Claim()
	}
	if cfg.AgentID == "" && !cfg.Enabled {
		cfg.AgentID = checkAgent
	}
	return cfg.Validate(section.Path)
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
	if err := c.Escalation.Validate(key("escalation"), c.AgentID); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.Signing.validate(key)...)
	if !store.Known(c.Backend) {
		errs = append(errs, fmt.Errorf("%s: unknown backend %q (known: %v; forgotten import?)",
			key("backend"), c.Backend, store.Names()))
	}
	return errors.Join(errs...)
}

// Bounds of the duration keys (seconds). Periods (a ticker's) are at least
// config.MinPeriod so that no setting keeps a core busy, and at most a
// day; timeouts and ages at most a year, far below what a time.Duration
// holds, so no value can overflow one or panic a ticker.
var (
	periodRange  = config.SecondsRange{Min: config.MinPeriod, Max: config.Day}
	timeoutRange = config.SecondsRange{Min: config.MinTimeout, Max: config.Year}
	pruneRange   = config.SecondsRange{Min: 1, Max: config.Year}
	ageRange     = config.SecondsRange{Min: 1, Max: config.Year, Zero: "no limit"}
)

// validateDurations checks every duration key of the section against its
// bounds; key names a key under the section.
func (c *Config) validateDurations(key func(string) string) []error {
	var errs []error
	for _, d := range []struct {
		name string
		v    float64
		r    config.SecondsRange
	}{
		{"pollInterval", c.PollInterval, periodRange},
		{"heartbeatInterval", c.HeartbeatInterval, periodRange},
		{"offlineAfter", c.OfflineAfter, timeoutRange},
		{"taskTimeout", c.TaskTimeout, timeoutRange},
		{"replyTimeout", c.ReplyTimeout, timeoutRange},
		{"orphanAfter", c.OrphanAfter, timeoutRange},
		{"pruneInterval", c.PruneInterval, pruneRange},
		{"processedMaxAge", c.ProcessedMaxAge, ageRange},
		{"archiveMaxAge", c.ArchiveMaxAge, ageRange},
	} {
		if p := d.r.Problem(d.v); p != "" {
			errs = append(errs, fmt.Errorf("%s: %s", key(d.name), p))
		}
	}
	return errs
}

// validate checks the sizes and counts; key names a key under the
// section. Config.validateDurations checks the durations.
func (c *Conversations) validate(key func(string) string) []error {
	var errs []error
	atLeast := func(name string, v, min int64) {
		if v < min {
			errs = append(errs, fmt.Errorf("%s: want at least %d, got %d", key(name), min, v))
		}
	}
	atLeast("auditMaxBytes", c.AuditMaxBytes, 4096)
	atLeast("auditKeep", int64(c.AuditKeep), 0)
	atLeast("maxFanout", int64(c.MaxFanout), 1)
	atLeast("processedMaxBytes", c.ProcessedMaxBytes, 0)
	atLeast("archiveMaxBytes", c.ArchiveMaxBytes, 0)
	atLeast("artifactsMaxBytes", c.ArtifactsMaxBytes, 0)
	return errs
}

// validate checks the keys; key names a key under the section.
func (w *Work) validate(key func(string) string) []error {
	var errs []error
	if p := timeoutRange.Problem(w.AcceptTimeout); p != "" {
		errs = append(errs, fmt.Errorf("%s: %s", key("acceptTimeout"), p))
	}
	b := w.Budget
	for _, n := range []struct {
		name string
		v    float64
	}{
		{"taskTokens", float64(b.TaskTokens)}, {"taskCost", b.TaskCost}, {"dailyTokens", float64(b.DailyTokens)},
		{"inputPrice", b.InputPrice}, {"outputPrice", b.OutputPrice},
	} {
		if n.v < 0 || math.IsNaN(n.v) || math.IsInf(n.v, 0) {
			errs = append(errs, fmt.Errorf("%s: want 0 (none) or more, got %v", key("budget."+n.name), n.v))
		}
	}
	if b.TaskCost > 0 && b.InputPrice == 0 && b.OutputPrice == 0 {
		errs = append(errs, fmt.Errorf("%s: a cost budget needs the model's prices (budget.inputPrice, budget.outputPrice)",
			key("budget.taskCost")))
	}
	return errs
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

// Retention returns the bounds of processed/ and archive/.
func (c *Conversations) Retention() store.Retention {
	return store.Retention{
		ProcessedMaxAge: seconds(c.ProcessedMaxAge), ProcessedMaxBytes: c.ProcessedMaxBytes,
		ArchiveMaxAge: seconds(c.ArchiveMaxAge), ArchiveMaxBytes: c.ArchiveMaxBytes,
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
