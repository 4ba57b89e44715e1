package host

import (
	"fmt"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/channels"
)

// offers is what the channels a host runs offer its agent loop, found by
// type assertion on each channel (the interfaces agentloop declares:
// ToolChannel, HookChannel, ApprovalChannel, TaskChannel,
// IdentityChannel, AnswerChannel). The host knows no channel: the mailbox offers all of
// them, a chat channel usually none.
type offers struct {
	tools []agent.Tool
	hooks []agent.Hook
	// book and bookFrom: the approval book and the channel that keeps it.
	book     agent.ApprovalBook
	bookFrom string
	// profile and profileFrom: the agent's identity and the channel that
	// gives it (nil without one).
	profile     *agent.Profile
	profileFrom string
	// judged are the channels that ask the agent before they accept a
	// task (Loop.Judge).
	judged []agentloop.TaskChannel
	// answers take the chat's answers to the channels' questions.
	answers []agentloop.AnswerChannel
}

// offersOf collects the offers of m's channels, in the order they were
// built. Two channels that both give the agent an identity, or both keep
// its approvals, are an error: the agent has one of each.
func offersOf(m *channels.Manager) (offers, error) {
	var o offers
	for _, name := range m.Names() {
		ch, ok := m.Channel(name)
		if !ok {
			continue
		}
		if c, ok := ch.(agentloop.ToolChannel); ok {
			o.tools = append(o.tools, c.Tools()...)
		}
		if c, ok := ch.(agentloop.HookChannel); ok {
			o.hooks = append(o.hooks, c.Hooks()...)
		}
		if c, ok := ch.(agentloop.ApprovalChannel); ok {
			if o.book != nil {
				return o, fmt.Errorf("channels.%s and channels.%s both keep the agent's approvals: enable one of them", o.bookFrom, name)
			}
			o.book, o.bookFrom = c.ApprovalBook(), name
		}
		if c, ok := ch.(agentloop.IdentityChannel); ok {
			if o.profile != nil {
				return o, fmt.Errorf("channels.%s and channels.%s both give the agent an identity: enable one of them", o.profileFrom, name)
			}
			p := c.Profile()
			o.profile, o.profileFrom = &p, name
		}
		if c, ok := ch.(agentloop.TaskChannel); ok {
			o.judged = append(o.judged, c)
		}
		if c, ok := ch.(agentloop.AnswerChannel); ok {
			o.answers = append(o.answers, c)
		}
	}
	return o, nil
}

// apply puts the offers into the loop's configuration: the channels'
// tools, their hooks in front of the others (a budget's refusal spares
// them), the approval book and the agent's identity.
func (o offers) apply(lc *agentloop.Config) error {
	if len(o.tools) > 0 {
		tools, err := agentloop.NewTools(o.tools...)
		if err != nil {
			return err
		}
		lc.Tools = tools
	}
	lc.Hooks = append(append([]agent.Hook(nil), o.hooks...), lc.Hooks...)
	if o.book != nil {
		lc.Approval.Book = o.book
	}
	for _, c := range o.answers {
		lc.Answers = append(lc.Answers, c.TakeAnswer)
	}
	if o.profile != nil {
		lc.SetProfile(*o.profile)
	}
	return nil
}

// judge makes l the judge of the tasks every channel delegates to the
// agent.
func (o offers) judge(l *agentloop.Loop) {
	for _, c := range o.judged {
		c.SetJudge(l.Judge)
	}
}
