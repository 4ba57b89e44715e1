package slack

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
const ChannelName = "slack"

// keyPath is the key path of the section, the prefix of config errors.
const keyPath = "channels." + ChannelName

// The group policies: which messages in channels are taken.
const (
	// GroupMention takes the messages that @-mention the bot.
	GroupMention = "mention"
	// GroupOpen takes every message of the channels the bot is in.
	GroupOpen = "open"
	// GroupAllowlist takes the messages of the channels listed in
	// groupAllowFrom (with groupRequireMention, only those that mention
	// the bot).
	GroupAllowlist = "allowlist"
)

// The direct-message policies.
const (
	// DMOpen takes every direct message.
	DMOpen = "open"
	// DMAllowlist takes the direct messages of the users in dm.allowFrom.
	DMAllowlist = "allowlist"
)

// Config is the channels.slack section, with nanobot's keys (its
// webhookPath, userTokenReadOnly, includeThreadContext and
// threadContextLimit are accepted and ignored) and switchboard's own
// (apiUrl, journal, mediaDir).
type Config struct {
	Enabled bool `json:"enabled"`
	// Mode is how events arrive: "socket" (Socket Mode), the only one.
	Mode string `json:"mode"`
	// BotToken is the bot's OAuth token (xoxb-...): OAuth & Permissions
	// in the app's settings, after installing the app to the workspace.
	BotToken channels.Secret `json:"botToken"`
	// AppToken is the app-level token (xapp-...) with the
	// connections:write scope that opens Socket Mode connections: Basic
	// Information → App-Level Tokens.
	AppToken channels.Secret `json:"appToken"`
	// ReplyInThread answers a message in a channel in a thread under it
	// (default true); a message already in a thread is always answered
	// there.
	ReplyInThread bool `json:"replyInThread"`
	// ReactEmoji is the reaction put on a message while it is worked on
	// (default "eyes"; "" for none); DoneEmoji replaces it once the
	// message is answered (default "white_check_mark"; "" for none).
	ReactEmoji string `json:"reactEmoji"`
	DoneEmoji  string `json:"doneEmoji"`
	// AllowFrom lists the user ids (U...) that may talk to the bot; ["*"]
	// allows everyone the policies below let through, and the empty list
	// (the default) no one.
	AllowFrom []string `json:"allowFrom"`
	// GroupPolicy says which messages in channels are taken: GroupMention
	// (the default), GroupOpen or GroupAllowlist.
	GroupPolicy string `json:"groupPolicy"`
	// GroupAllowFrom lists the channel ids (C..., G...) of GroupAllowlist.
	GroupAllowFrom []string `json:"groupAllowFrom"`
	// GroupRequireMention makes GroupAllowlist take only the messages
	// that mention the bot.
	GroupRequireMention bool `json:"groupRequireMention"`
	// DM is the policy of direct messages.
	DM DMConfig `json:"dm"`

	// APIURL replaces Slack's Web API address, https://slack.com/api/
	// (a proxy, a test server).
	APIURL string `json:"apiUrl"`
	// Journal is the file that keeps each message from the moment Slack
	// hears it was taken until it is answered, and the ids answered lately
	// (default slack-journal.jsonl in the agent's workspace).
	Journal string `json:"journal"`
	// MediaDir is where shared files are downloaded (default media/slack
	// in the agent's workspace).
	MediaDir string `json:"mediaDir"`
}

// DMConfig is channels.slack.dm, nanobot's policy of direct messages.
type DMConfig struct {
	// Enabled takes direct messages at all (default true).
	Enabled bool `json:"enabled"`
	// Policy is DMOpen (the default) or DMAllowlist.
	Policy string `json:"policy"`
	// AllowFrom lists the user ids of DMAllowlist.
	AllowFrom []string `json:"allowFrom"`
}

// DefaultConfig returns the defaults of the section, nanobot's.
func DefaultConfig() Config {
	return Config{
		Mode:          "socket",
		ReplyInThread: true,
		ReactEmoji:    "eyes",
		DoneEmoji:     "white_check_mark",
		GroupPolicy:   GroupMention,
		DM:            DMConfig{Enabled: true, Policy: DMOpen},
		APIURL:        "https://slack.com/api/",
	}
}

// Validate checks the values; each error is a *config.KeyError naming
// its key under path ("channels.slack"), sorted by key path. What a running channel needs
// (both tokens, a non-empty allowFrom) is required only when the section
// is enabled.
func (c *Config) Validate(path string) error { return joinSorted(c.problems(path)) }

// problems returns what Validate reports, unsorted.
func (c *Config) problems(path string) []*config.KeyError {
	var errs []*config.KeyError
	bad := func(key, format string, args ...any) {
		errs = append(errs, &config.KeyError{Path: path + "." + key, Msg: fmt.Sprintf(format, args...), Err: config.ErrInvalidValue})
	}
	oneOf := func(key, v string, allowed ...string) {
		if !slices.Contains(allowed, v) {
			bad(key, "want one of %q, got %q", allowed, v)
		}
	}
	if c.Mode != "socket" {
		bad("mode", `want "socket" (Socket Mode, the only mode this channel has), got %q`, c.Mode)
	}
	oneOf("groupPolicy", c.GroupPolicy, GroupMention, GroupOpen, GroupAllowlist)
	oneOf("dm.policy", c.DM.Policy, DMOpen, DMAllowlist)
	if u, err := url.Parse(c.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("apiUrl", "want an http(s) URL, got %q", c.APIURL)
	}
	for key, v := range map[string]string{"reactEmoji": c.ReactEmoji, "doneEmoji": c.DoneEmoji} {
		if strings.ContainsAny(strings.Trim(v, ":"), ": \t\n") {
			bad(key, "want an emoji's name (eyes, white_check_mark), got %q", v)
		}
	}
	if !c.Enabled {
		return errs
	}
	if c.BotToken == "" {
		bad("botToken", "required: the bot token (xoxb-...) from OAuth & Permissions in the app's settings")
	} else if !strings.HasPrefix(c.BotToken.Reveal(), "xoxb-") {
		bad("botToken", "want a bot token, which starts with xoxb- (OAuth & Permissions in the app's settings)")
	}
	if c.AppToken == "" {
		bad("appToken", "required: an app-level token (xapp-...) with the connections:write scope "+
			"(Basic Information → App-Level Tokens in the app's settings)")
	} else if !strings.HasPrefix(c.AppToken.Reveal(), "xapp-") {
		bad("appToken", "want an app-level token, which starts with xapp- (Basic Information → App-Level Tokens)")
	}
	if len(c.AllowFrom) == 0 {
		bad("allowFrom", `empty list denies every sender; list the allowed user ids (U...), or ["*"] to allow all `+
			"that dm.policy and groupPolicy let through")
	}
	return errs
}

// joinSorted joins errs sorted by key path, as config's decoding does.
func joinSorted(errs []*config.KeyError) error {
	slices.SortStableFunc(errs, func(a, b *config.KeyError) int { return strings.Compare(a.Path, b.Path) })
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return errors.Join(joined...)
}

// DecodeConfig decodes and validates a channels.slack section.
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

// apiURL is the Web API's address, ending in "/" as slack-go wants it.
func (c *Config) apiURL() string {
	return strings.TrimRight(c.APIURL, "/") + "/"
}

// emoji returns an emoji's name without the colons around it.
func emoji(name string) string { return strings.Trim(name, ":") }
