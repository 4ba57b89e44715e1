package escalate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// Human is the level of a person: the chat the stuck work began in, or
// the operator's chat (Config.Chat), and the command line and console.
const Human = "human"

// The triggers: what makes work stuck.
const (
	// Rejected: the task was rejected by its worker (for a task sent to a
	// group, by every holder of the group, each offered it in turn).
	Rejected = "rejected"
	// Failed: the worker failed the task, or went offline while on it.
	Failed = "failed"
	// NotAccepted: no worker accepted the task within acceptTimeout.
	NotAccepted = "notAccepted"
	// Overdue: no result by the task's deadline.
	Overdue = "overdue"
	// Stalemate: the task failed as a stalemate (reason "stalemate: ...").
	Stalemate = "stalemate"
	// Deadlock: the task failed to break a deadlock (reason "deadlock
	// broken: ...").
	Deadlock = "deadlock"
)

// Triggers lists every trigger, in the order of a task's life.
var Triggers = []string{Rejected, NotAccepted, Failed, Overdue, Stalemate, Deadlock}

// Default timeouts of a level, in seconds.
const (
	// DefaultTimeout is how long an agent or group level has to answer.
	DefaultTimeout = 600
	// DefaultHumanTimeout is how long the human level has.
	DefaultHumanTimeout = 3600
)

// Config is the channels.mailbox.escalation section. Without Levels,
// nothing escalates: stuck work ends as it always did (the chat is told
// why it failed).
type Config struct {
	// Levels are climbed in order: an agent id, cap:NAME or role:NAME (one
	// online agent of the group), or "human".
	Levels []string `json:"levels"`
	// On are the triggers that start an escalation (default: all).
	On []string `json:"on"`
	// Timeout is how long an agent or group level has before the
	// escalation climbs to the next (seconds; default 600); HumanTimeout
	// the human level's (default 3600).
	Timeout      float64 `json:"timeout"`
	HumanTimeout float64 `json:"humanTimeout"`
	// Timeouts, when set, give each level its own time, in the order of
	// Levels (one number per level).
	Timeouts []float64 `json:"timeouts"`
	// Channel and ChatID name the operator's chat, where the human level
	// is asked; empty: the chat the work began in.
	Channel string `json:"channel"`
	ChatID  string `json:"chatId"`
}

// DefaultConfig is no escalation: no levels, every trigger, 600 s a
// level, 3600 s for a person.
func DefaultConfig() Config {
	return Config{On: slices.Clone(Triggers), Timeout: DefaultTimeout, HumanTimeout: DefaultHumanTimeout}
}

// Enabled reports whether anything escalates.
func (c Config) Enabled() bool { return len(c.Levels) > 0 }

// Triggered reports whether trigger starts an escalation.
func (c Config) Triggered(trigger string) bool {
	return c.Enabled() && slices.Contains(c.On, trigger)
}

// LevelTimeout returns how long level i has to answer.
func (c Config) LevelTimeout(i int) time.Duration {
	s := c.Timeout
	switch {
	case i >= 0 && i < len(c.Timeouts):
		s = c.Timeouts[i]
	case i >= 0 && i < len(c.Levels) && c.Levels[i] == Human:
		s = c.HumanTimeout
	}
	return time.Duration(s * float64(time.Second))
}

var timeoutRange = config.SecondsRange{Min: 1, Max: 30 * config.Day}

// Validate checks the section; errors name the key under prefix
// ("channels.mailbox.escalation"). self is the agent's own id, which may
// not be a level of its own.
func (c Config) Validate(prefix, self string) error {
	key := func(name string) string { return prefix + "." + name }
	var errs []error
	seen := map[string]bool{}
	for i, l := range c.Levels {
		k := fmt.Sprintf("%s[%d]", key("levels"), i)
		if err := CheckLevel(l); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
		} else if l == self {
			errs = append(errs, fmt.Errorf("%s: %q is this agent: a level is someone else who decides (another agent, a group, or human)", k, l))
		}
		if seen[l] {
			errs = append(errs, fmt.Errorf("%s: %q is listed twice", k, l))
		}
		seen[l] = true
	}
	for i, t := range c.On {
		if !slices.Contains(Triggers, t) {
			errs = append(errs, fmt.Errorf("%s[%d]: unknown trigger %q (known: %s)", key("on"), i, t, strings.Join(Triggers, ", ")))
		}
	}
	if c.Enabled() && len(c.On) == 0 {
		errs = append(errs, fmt.Errorf("%s: empty: name the triggers (%s), or leave the key out for all of them",
			key("on"), strings.Join(Triggers, ", ")))
	}
	for _, d := range []struct {
		name string
		v    float64
	}{{"timeout", c.Timeout}, {"humanTimeout", c.HumanTimeout}} {
		if p := timeoutRange.Problem(d.v); p != "" {
			errs = append(errs, fmt.Errorf("%s: %s", key(d.name), p))
		}
	}
	if len(c.Timeouts) > 0 && len(c.Timeouts) != len(c.Levels) {
		errs = append(errs, fmt.Errorf("%s: want one number of seconds per level (%d), got %d",
			key("timeouts"), len(c.Levels), len(c.Timeouts)))
	}
	for i, v := range c.Timeouts {
		if p := timeoutRange.Problem(v); p != "" {
			errs = append(errs, fmt.Errorf("%s[%d]: %s", key("timeouts"), i, p))
		}
	}
	if (c.Channel == "") != (c.ChatID == "") {
		errs = append(errs, fmt.Errorf("%s: set both channel and chatId (the operator's chat), or neither", key("chatId")))
	}
	if c.Channel != "" && !slices.Contains(c.Levels, Human) {
		errs = append(errs, fmt.Errorf("%s: the operator's chat is where the human level is asked; add \"human\" to levels", key("channel")))
	}
	return errors.Join(errs...)
}

// CheckLevel validates one level: an agent id, cap:NAME, role:NAME or
// human.
func CheckLevel(l string) error {
	if l == Human {
		return nil
	}
	t, err := route.ParseTarget(l)
	if err != nil {
		return fmt.Errorf("want an agent id, cap:NAME, role:NAME or human: %w", err)
	}
	switch t.Kind {
	case route.TargetName, route.TargetAgent, route.TargetCap, route.TargetRole:
		return nil
	}
	return fmt.Errorf("%q: want an agent id, cap:NAME, role:NAME or human", l)
}

// IsGroup reports whether level l names a group (cap:NAME, role:NAME).
func IsGroup(l string) bool {
	return strings.HasPrefix(l, "cap:") || strings.HasPrefix(l, "role:")
}
