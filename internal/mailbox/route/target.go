package route

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// TargetKind is how a target names its recipients.
type TargetKind string

// The kinds of target (seed 003).
const (
	TargetAgent   TargetKind = "agent"   // one agent by id ("coder", "agent:coder")
	TargetAll     TargetKind = "all"     // every registered agent but the sender ("all")
	TargetPattern TargetKind = "pattern" // registered agents whose id matches ("coder-*")
	TargetCap     TargetKind = "cap"     // every holder of a capability ("cap:review")
	TargetRole    TargetKind = "role"    // every holder of a role ("role:reviewer")
	TargetAny     TargetKind = "any"     // the least loaded online holder of a capability or role ("any:review")
	TargetName    TargetKind = "name"    // a bare name: an agent, else holders of a capability or role
)

// Target is a parsed send target.
type Target struct {
	Kind TargetKind
	Name string // the agent id, pattern, capability or role
}

// String returns the target as it is written.
func (t Target) String() string {
	switch t.Kind {
	case TargetAll:
		return "all"
	case TargetPattern, TargetName:
		return t.Name
	}
	return string(t.Kind) + ":" + t.Name
}

// ParseTarget reads a target: "all"; "agent:ID"; "cap:NAME", "role:NAME"
// or "any:NAME"; a wildcard pattern over agent ids ("coder-*", with * ? and
// [...] as in path.Match); or a bare name, which is an agent id when such
// an agent is registered (or has an inbox), else the holders of a
// capability or role of that name, else an agent that has not registered
// yet (its message waits in its inbox).
func ParseTarget(s string) (Target, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Target{}, errors.New("target: empty")
	}
	if s == "all" {
		return Target{Kind: TargetAll}, nil
	}
	if kind, name, ok := strings.Cut(s, ":"); ok {
		t := Target{Kind: TargetKind(kind), Name: name}
		switch t.Kind {
		case TargetAgent:
			if err := envelope.ValidateAgentID(name); err != nil {
				return Target{}, fmt.Errorf("target %q: %w", s, err)
			}
			return t, nil
		case TargetCap, TargetRole, TargetAny:
			if name == "" || strings.ContainsAny(name, " \t\n") {
				return Target{}, fmt.Errorf("target %q: want %s:NAME with a capability or role name", s, kind)
			}
			return t, nil
		}
		return Target{}, fmt.Errorf("target %q: unknown prefix %q (want agent:, cap:, role: or any:)", s, kind+":")
	}
	if strings.ContainsAny(s, "*?[") {
		if _, err := path.Match(s, ""); err != nil {
			return Target{}, fmt.Errorf("target %q: bad pattern: %w", s, err)
		}
		return Target{Kind: TargetPattern, Name: s}, nil
	}
	if err := envelope.ValidateAgentID(s); err != nil {
		return Target{}, fmt.Errorf("%w (or use all, cap:NAME, role:NAME, any:NAME or a pattern)", err)
	}
	return Target{Kind: TargetName, Name: s}, nil
}

// ResolveOptions are the settings of Resolve.
type ResolveOptions struct {
	// Now and OfflineAfter decide which agents are online (for any:).
	Now          time.Time
	OfflineAfter time.Duration
	// MaxFanout caps the recipients (0: no cap).
	MaxFanout int
	// HasInbox reports whether an agent has an inbox already, registered
	// or not (nil: none has).
	HasInbox func(agent string) bool
	// Work leaves out of every group the agents that take no new work
	// (draining): the send is a task.
	Work bool
}

// Resolve returns the agents target t names for a send from `from`,
// sorted (one agent for agent: and any:). Groups (all, patterns,
// capabilities, roles) never include the sender; an empty group is an
// error wrapping ErrUnknownTarget, and one larger than MaxFanout an error
// wrapping ErrFanout.
func Resolve(ctx context.Context, reg store.Registry, from string, t Target, opts ResolveOptions) ([]string, error) {
	if t.Kind == TargetAgent {
		return []string{t.Name}, nil
	}
	agents, err := view.ListAgents(ctx, reg, cmp.Or(opts.Now, time.Now()), opts.OfflineAfter, false)
	if err != nil {
		return nil, fmt.Errorf("resolve target %s: %w", t, err)
	}
	others := slices.DeleteFunc(slices.Clone(agents), func(a view.Agent) bool {
		return a.AgentID == from || opts.Work && !a.TakesWork()
	})
	holders := func(match func(view.Agent) bool) []string {
		var ids []string
		for _, a := range others {
			if match(a) {
				ids = append(ids, a.AgentID)
			}
		}
		return ids
	}
	var out []string
	var none string
	switch t.Kind {
	case TargetAll:
		out, none = holders(func(view.Agent) bool { return true }), "no agent is registered besides "+from
	case TargetPattern:
		out = holders(func(a view.Agent) bool { ok, _ := path.Match(t.Name, a.AgentID); return ok })
		none = "no registered agent matches (registered: " + idList(agents) + ")"
	case TargetCap:
		out, none = holders(func(a view.Agent) bool { return a.HasCapability(t.Name) }), "no agent has capability "+t.Name
	case TargetRole:
		out, none = holders(func(a view.Agent) bool { return a.HasRole(t.Name) }), "no agent has role "+t.Name
	case TargetAny:
		return pickLeastLoaded(others, t.Name)
	case TargetName:
		if slices.ContainsFunc(agents, func(a view.Agent) bool { return a.AgentID == t.Name }) ||
			opts.HasInbox != nil && opts.HasInbox(t.Name) {
			return []string{t.Name}, nil
		}
		out = holders(func(a view.Agent) bool { return a.HasCapability(t.Name) || a.HasRole(t.Name) })
		if len(out) == 0 {
			return []string{t.Name}, nil // an agent not registered yet: its message waits
		}
	default:
		return nil, fmt.Errorf("resolve target %s: unknown kind %q", t, t.Kind)
	}
	if len(out) == 0 {
		if d := draining(agents, from); opts.Work && d != "" {
			none += " that takes new tasks (draining: " + d + ")"
		}
		return nil, fmt.Errorf("target %s: %w: %s", t, ErrUnknownTarget, none)
	}
	if opts.MaxFanout > 0 && len(out) > opts.MaxFanout {
		return nil, fmt.Errorf("target %s: %w: %d recipients, over the limit of %d (channels.mailbox.maxFanout)",
			t, ErrFanout, len(out), opts.MaxFanout)
	}
	slices.Sort(out)
	return out, nil
}

// draining lists the agents other than from that drain, comma-separated.
func draining(agents []view.Agent, from string) string {
	var ids []string
	for _, a := range agents {
		if a.AgentID != from && !a.TakesWork() && a.Effective != envelope.StatusOffline {
			ids = append(ids, a.AgentID)
		}
	}
	return strings.Join(ids, ", ")
}

// pickLeastLoaded returns the online holder of capability or role name
// with the most free task slots (then the fewest tasks, then the id).
func pickLeastLoaded(agents []view.Agent, name string) ([]string, error) {
	var best *view.Agent
	for i := range agents {
		a := &agents[i]
		if a.Effective == envelope.StatusOffline || !a.TakesWork() || !a.HasCapability(name) && !a.HasRole(name) {
			continue
		}
		if best == nil || cmp.Or(cmp.Compare(a.FreeSlots(), best.FreeSlots()),
			cmp.Compare(len(best.CurrentTasks), len(a.CurrentTasks)), strings.Compare(best.AgentID, a.AgentID)) > 0 {
			best = a
		}
	}
	if best == nil {
		return nil, fmt.Errorf("target any:%s: %w offers it (capability or role)", name, ErrNoAgent)
	}
	return []string{best.AgentID}, nil
}

func idList(agents []view.Agent) string {
	if len(agents) == 0 {
		return "none"
	}
	ids := make([]string, len(agents))
	for i, a := range agents {
		ids[i] = a.AgentID
	}
	return strings.Join(ids, ", ")
}
