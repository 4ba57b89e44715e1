package a2a

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// TypeName is the channel type and section name: channels.a2a.
const TypeName = "a2a"

// Config is the channels.a2a section. Durations are seconds.
type Config struct {
	Enabled bool `json:"enabled"`
	// AgentID is the gateway's own mailbox identity, the sender of the
	// tasks of A2A clients (default "a2a"). The served agents must allow
	// it (allowFrom).
	AgentID string `json:"agentId"`
	// Listen is the server's host:port ("" serves nothing: the gateway
	// only connects A2A agents).
	Listen string `json:"listen"`
	// PublicURL is the base URL the cards name (default http://<listen>).
	PublicURL string `json:"publicUrl"`
	// Token is the bearer token A2A clients must send; required unless
	// Listen is a loopback address.
	Token channels.Secret `json:"token"`
	// Serve are the mailbox agents served; "*" serves every registered
	// agent.
	Serve []string `json:"serve"`
	// Default is the agent whose card is also at the root,
	// /.well-known/agent-card.json (default: the first of Serve but "*").
	Default string `json:"default"`
	// TaskTimeout is the deadline of a task from an A2A client (default
	// 3600).
	TaskTimeout float64 `json:"taskTimeout"`
	// ClientApproves lets an A2A client answer "approve" or "deny" to the
	// approval its task waits for (default false: an operator decides).
	ClientApproves bool `json:"clientApproves"`
	// KeepTasks is how many ended A2A tasks are kept (default 1000).
	KeepTasks int `json:"keepTasks"`
	// Budget bounds what a task from an A2A client may spend on models
	// ({"tokens": N, "cost": X}; default no bound).
	Budget *envelope.Budget `json:"budget"`
	// Connect are the A2A agents that become mailbox agents, by the
	// mailbox id they get.
	Connect map[string]RemoteConfig `json:"connect"`
}

// RemoteConfig is one entry of channels.a2a.connect.
type RemoteConfig struct {
	// URL is the agent's base URL; its card is at URL + CardPath.
	URL string `json:"url"`
	// CardPath is where the card is (default
	// /.well-known/agent-card.json).
	CardPath string `json:"cardPath"`
	// Token is sent as a bearer token with every request.
	Token channels.Secret `json:"token"`
	// Description and Capabilities replace the card's description and
	// skills on the mailbox card.
	Description  string   `json:"description"`
	Capabilities []string `json:"capabilities"`
	// Refresh is how often the card is fetched again (default 300).
	Refresh float64 `json:"refresh"`
	// Poll makes the participant poll the task (GetTask every
	// PollInterval) instead of streaming it, as it does anyway when the
	// card says the agent does not stream.
	Poll         bool    `json:"poll"`
	PollInterval float64 `json:"pollInterval"`
	// MaxConcurrentTasks and AllowFrom are the mailbox agent's (defaults 3
	// and ["*"]).
	MaxConcurrentTasks int      `json:"maxConcurrentTasks"`
	AllowFrom          []string `json:"allowFrom"`
	// Transport prefers one of the card's transports: "JSONRPC" or
	// "HTTP+JSON" (default: the card's order).
	Transport string `json:"transport"`
}

// Defaults.
const (
	DefaultAgentID      = "a2a"
	DefaultTaskTimeout  = 3600
	DefaultKeepTasks    = 1000
	DefaultRefresh      = 300
	DefaultPollInterval = 2
	// maxSeconds bounds every duration: a year.
	maxSeconds = 365 * 24 * 3600
)

// DefaultConfig returns the defaults: agent id "a2a", tasks time out
// after an hour, 1000 ended tasks kept.
func DefaultConfig() Config {
	return Config{AgentID: DefaultAgentID, TaskTimeout: DefaultTaskTimeout, KeepTasks: DefaultKeepTasks}
}

// DefaultRemote returns the defaults of an entry of connect.
func DefaultRemote() RemoteConfig {
	return RemoteConfig{Refresh: DefaultRefresh, PollInterval: DefaultPollInterval, MaxConcurrentTasks: 3, AllowFrom: []string{"*"}}
}

// Validate checks the values; errors name the key under prefix.
func (c *Config) Validate(prefix string) error {
	key := func(k string) string { return prefix + "." + k }
	var errs []error
	add := func(k, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key(k)}, args...)...))
	}
	if err := envelope.ValidateAgentID(c.AgentID); err != nil {
		add("agentId", "%v", err)
	}
	if c.Listen == "" && len(c.Serve) > 0 {
		add("listen", "required to serve %v (host:port, e.g. 127.0.0.1:8790)", c.Serve)
	}
	if c.Listen != "" {
		if len(c.Serve) == 0 {
			add("serve", "name the mailbox agents to serve on %s (or \"*\" for all)", c.Listen)
		}
		host, _, err := net.SplitHostPort(c.Listen)
		switch {
		case err != nil:
			add("listen", "want host:port, got %q", c.Listen)
		case c.Token == "" && !loopback(host):
			errs = append(errs, fmt.Errorf("%s: required when %s (%s) is not a loopback address", key("token"), key("listen"), c.Listen))
		}
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			add("publicUrl", "want an http or https URL, got %q", c.PublicURL)
		}
	}
	for i, id := range c.Serve {
		switch {
		case id == "*":
		case envelope.ValidateAgentID(id) != nil:
			add(fmt.Sprintf("serve[%d]", i), "%v", envelope.ValidateAgentID(id))
		case id == c.AgentID:
			add(fmt.Sprintf("serve[%d]", i), "%q is the gateway's own id (agentId)", id)
		}
	}
	if c.Default != "" && !slices.Contains(c.Serve, c.Default) && !slices.Contains(c.Serve, "*") {
		add("default", "%q is not served (serve: %v)", c.Default, c.Serve)
	}
	if c.TaskTimeout <= 0 || c.TaskTimeout > maxSeconds {
		add("taskTimeout", "want seconds from more than 0 to a year, got %v", c.TaskTimeout)
	}
	if c.KeepTasks < 0 {
		add("keepTasks", "want 0 or more, got %d", c.KeepTasks)
	}
	if c.Budget != nil && (c.Budget.Tokens < 0 || c.Budget.Cost < 0) {
		add("budget", "want tokens and cost of 0 or more")
	}
	for _, name := range slices.Sorted(maps.Keys(c.Connect)) {
		r := c.Connect[name]
		errs = append(errs, r.validate(key("connect."+name), name, c)...)
	}
	if c.Enabled && c.Listen == "" && len(c.Connect) == 0 {
		errs = append(errs, fmt.Errorf("%s: serve agents (listen, serve) or connect some (connect), or both", prefix))
	}
	return errors.Join(errs...)
}

// validate checks one entry of connect, named name.
func (r *RemoteConfig) validate(prefix, name string, c *Config) []error {
	key := func(k string) string { return prefix + "." + k }
	var errs []error
	add := func(k, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key(k)}, args...)...))
	}
	switch {
	case envelope.ValidateAgentID(name) != nil:
		errs = append(errs, fmt.Errorf("%s: the name is the agent's mailbox id: %w", prefix, envelope.ValidateAgentID(name)))
	case name == c.AgentID:
		errs = append(errs, fmt.Errorf("%s: %q is the gateway's own id (agentId)", prefix, name))
	case slices.Contains(c.Serve, name):
		errs = append(errs, fmt.Errorf("%s: %q is served as well (serve): an agent is one or the other", prefix, name))
	}
	if u, err := url.Parse(r.URL); r.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		add("url", "want the agent's http or https URL, got %q", r.URL)
	}
	if r.CardPath != "" && !strings.HasPrefix(r.CardPath, "/") {
		add("cardPath", "want a path starting with /, got %q", r.CardPath)
	}
	if r.Refresh < 1 || r.Refresh > maxSeconds {
		add("refresh", "want seconds from 1 to a year, got %v", r.Refresh)
	}
	if r.PollInterval < 0.01 || r.PollInterval > 3600 {
		add("pollInterval", "want seconds from 0.01 to 3600, got %v", r.PollInterval)
	}
	if r.MaxConcurrentTasks < 1 {
		add("maxConcurrentTasks", "want at least 1, got %d", r.MaxConcurrentTasks)
	}
	switch r.Transport {
	case "", "JSONRPC", "HTTP+JSON":
	default:
		add("transport", `want "JSONRPC" or "HTTP+JSON", got %q`, r.Transport)
	}
	return errs
}

// loopback reports whether host names this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
