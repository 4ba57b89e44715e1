package agentloop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/backoff"
)

// DefaultApprovalTimeout is how long an approval waits for a decision
// when ApprovalConfig.Timeout is zero; past it the step is denied.
const DefaultApprovalTimeout = 5 * time.Minute

// The kinds of approval.
const (
	ApprovalTool = "tool" // a tool call
	ApprovalTask = "task" // a task delegated to this agent, before work starts
)

// ApprovalConfig says which steps need a person's approval, where to ask,
// and where approvals are kept. The zero value asks for nothing.
type ApprovalConfig struct {
	// Tools are the tools that need approval before each call ("*": all).
	Tools []string
	// Tasks are the task kinds that need approval before a delegated task
	// is worked on: a task whose subject or text names one of them, as
	// the capabilities judgement matches ("*": every task).
	Tasks []string
	// Timeout is how long an approval waits (default
	// DefaultApprovalTimeout); with no decision by then it is denied.
	Timeout time.Duration
	// Channel and ChatID name the operator's chat, where every question
	// is asked and any of its users may answer; empty: each is asked in
	// the chat of the turn, where only the user whose message started the
	// turn may answer, and those of a turn that came from another agent (a
	// task through the mailbox) in no chat (the command line and the
	// console can answer them). A message from another agent never
	// answers (see approval_answer.go).
	Channel, ChatID string
	// Book keeps the approvals where other processes can list and decide
	// them (a channel's book: see ApprovalChannel); nil keeps them in this
	// process only. The gate puts each question there and writes there
	// each decision it makes (the chat's, the timeout's, the stop's), so a
	// book that keeps an audit log records them all.
	Book agent.ApprovalBook
	// Clock runs the timeout and the polls of Book (default clock.Real).
	Clock clock.Clock
}

// needed reports whether anything needs approval.
func (c ApprovalConfig) needed() bool { return len(c.Tools) > 0 || len(c.Tasks) > 0 }

// toolNeeds reports whether a call of tool name needs approval.
func (c ApprovalConfig) toolNeeds(name string) bool {
	return slices.Contains(c.Tools, "*") || slices.Contains(c.Tools, name)
}

// taskNeeds reports whether a task with this text needs approval.
func (c ApprovalConfig) taskNeeds(text string) bool {
	if slices.Contains(c.Tasks, "*") {
		return true
	}
	text = strings.ToLower(text)
	for _, k := range c.Tasks {
		k = strings.ToLower(strings.TrimSpace(k))
		if k != "" && (strings.Contains(text, k) || strings.Contains(text, stem(k))) {
			return true
		}
	}
	return false
}

// approvalPoll spaces the reads of the book for a decision made by
// another process: after 250 ms, then twice as long each time up to 5 s,
// jittered so that many waiting approvals do not read in step.
var approvalPoll = backoff.Policy{Initial: 250 * time.Millisecond, Max: 5 * time.Second}

// gate asks for approvals and waits for them. Answers typed in a chat
// reach it through take, before the scheduler: the session whose turn
// waits is busy, so its own queue cannot carry the answer.
type gate struct {
	cfg   ApprovalConfig
	agent string
	bus   *bus.Bus
	log   logger
	clk   clock.Clock

	mu      sync.Mutex
	waiting map[string][]*waiter // by chat key, oldest first
	stats   [2]approvalCounters  // tool, task (see counters)
}

// logger is the part of *slog.Logger the gate uses.
type logger interface {
	Info(msg string, args ...any)
	Warn(msg string, args ...any)
}

// waiter is one approval waiting for a chat's answer.
type waiter struct {
	id     string
	answer chan agent.Decision // buffered 1
	// approval is what waits (for the record of a refused answer).
	approval agent.Approval
	// anyone is set when every user of the chat may decide (the
	// operator's chat); else only asker may: the sender of the message
	// that started the turn.
	anyone bool
	asker  string
}

func newGate(cfg ApprovalConfig, agent string, b *bus.Bus, log logger) *gate {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultApprovalTimeout
	}
	if cfg.Book == nil {
		cfg.Book = newLocalBook()
	}
	return &gate{cfg: cfg, agent: agent, bus: b, log: log, clk: clock.Or(cfg.Clock), waiting: map[string][]*waiter{}}
}

func chatKey(channel, chatID string) string { return channel + "\x00" + chatID }

// where returns the chat to ask in for a turn that came in on in.
func (g *gate) where(in bus.InboundMessage) (channel, chatID string) {
	if g.cfg.Channel != "" {
		return g.cfg.Channel, g.cfg.ChatID
	}
	if in.Note != nil {
		return "", "" // a message from another agent: its chat is that agent
	}
	return in.Channel, in.ChatID
}

// ask records an approval of kind for action (detail: its arguments),
// asks in the turn's chat, and waits for a decision: the chat's answer,
// one made through the book by another process, or the timeout, which
// denies. It returns the decision that stands. A failure to record the
// question denies (the step does not run without a chance to approve it).
func (g *gate) ask(ctx context.Context, turn *agent.Turn, kind, action, detail string) (out agent.Decision) {
	c := g.counters(kind)
	c.asked.Add(1)
	defer func() { c.decided(out) }()
	now := g.clk.Now()
	a := agent.Approval{ID: uuid.Must(uuid.NewV7()).String(), Agent: g.agent, Kind: kind, Action: action,
		Detail: clipDetail(detail), Created: now, Deadline: now.Add(g.cfg.Timeout)}
	in := turn.Inbound
	a.MessageID = in.ID
	if in.Note != nil {
		a.TaskID = in.Note.TaskID
	}
	a.Channel, a.ChatID = g.where(in)
	if err := g.cfg.Book.PutApproval(ctx, a); err != nil {
		g.log.Warn("approval not recorded; denied", "action", action, "err", err)
		return agent.Decision{By: "error", Reason: "the approval could not be recorded: " + err.Error(), Time: now}
	}
	defer func() {
		if err := g.cfg.Book.DeleteApproval(context.WithoutCancel(ctx), a.ID); err != nil {
			g.log.Warn("approval record not removed", "id", a.ID, "err", err)
		}
	}()
	w := &waiter{id: a.ID, answer: make(chan agent.Decision, 1), approval: a,
		anyone: g.cfg.Channel != "", asker: in.SenderID}
	asked := func() {}
	if a.Channel != "" {
		key := chatKey(a.Channel, a.ChatID)
		g.mu.Lock()
		g.waiting[key] = append(g.waiting[key], w)
		g.mu.Unlock()
		defer g.forget(key, w)
		asked = func() {
			g.say(ctx, a, fmt.Sprintf("Approval needed: %s wants to %s%s. Answer \"approve\" or \"deny\" within %s; no answer denies. (approval %s)",
				g.agent, action, inParens(a.Detail), g.cfg.Timeout, a.ID))
		}
	}
	g.log.Info("waiting for approval", "id", a.ID, "action", action, "chat", a.Channel+":"+a.ChatID)
	d := g.wait(ctx, a, w, asked)
	switch {
	case a.Channel == "":
	case d.By == "timeout":
		g.say(ctx, a, fmt.Sprintf("No answer within %s: denied, %s will not %s.", g.cfg.Timeout, g.agent, action))
	case d.By == agent.Operator:
		g.say(ctx, a, fmt.Sprintf("The operator %s: %s.", d.Verb(), action))
	}
	return d
}

// wait returns the decision that stands for a. It calls asked once its
// timers run, so that whoever hears the question finds the clock of its
// deadline running.
func (g *gate) wait(ctx context.Context, a agent.Approval, w *waiter, asked func()) agent.Decision {
	deadline := g.clk.NewTimer(a.Deadline.Sub(g.clk.Now()))
	defer deadline.Stop()
	expired := deadline.C()
	if !g.clk.Now().Before(a.Deadline) {
		// Past the deadline already: the clock may have moved on between
		// reading it and setting the timer (a manual clock moved by another
		// goroutine), which then waits that much too long.
		now := make(chan time.Time, 1)
		now <- a.Deadline
		expired = now
	}
	polls := approvalPoll.Start()
	poll := g.clk.NewTimer(polls.Next())
	defer poll.Stop()
	asked()
	decide := func(d agent.Decision) agent.Decision {
		got, err := g.cfg.Book.DecideApproval(context.WithoutCancel(ctx), a.ID, d)
		switch {
		case err == nil, errors.Is(err, agent.ErrDecided) && got.Decision != nil:
			return *got.Decision
		default:
			g.log.Warn("approval decision not recorded", "id", a.ID, "err", err)
			return d
		}
	}
	for {
		select {
		case d := <-w.answer:
			return decide(d)
		case <-expired:
			return decide(agent.Decision{Allow: false, By: "timeout", Reason: "no answer within " + g.cfg.Timeout.String(), Time: g.clk.Now()})
		case <-poll.C():
			got, err := g.cfg.Book.GetApproval(ctx, a.ID)
			if err == nil && got.Decision != nil {
				return *got.Decision
			}
			if err != nil && ctx.Err() == nil {
				g.log.Warn("approval not readable", "id", a.ID, "err", err)
			}
			poll.Reset(polls.Next())
		case <-ctx.Done():
			// Denied, whatever is decided meanwhile; the book is told, so
			// that it records how the approval ended.
			d := agent.Decision{By: "stop", Reason: "the agent is stopping", Time: g.clk.Now()}
			if _, err := g.cfg.Book.DecideApproval(context.WithoutCancel(ctx), a.ID, d); err != nil && !errors.Is(err, agent.ErrDecided) {
				g.log.Warn("approval decision not recorded", "id", a.ID, "err", err)
			}
			return d
		}
	}
}

// forget removes w from the chat's waiters.
func (g *gate) forget(key string, w *waiter) {
	g.mu.Lock()
	defer g.mu.Unlock()
	ws := slices.DeleteFunc(g.waiting[key], func(x *waiter) bool { return x == w })
	if len(ws) == 0 {
		delete(g.waiting, key)
		return
	}
	g.waiting[key] = ws
}

// say tells the approval's chat something.
func (g *gate) say(ctx context.Context, a agent.Approval, text string) {
	out := bus.OutboundMessage{Channel: a.Channel, ChatID: a.ChatID, Content: text}
	if err := g.bus.PublishOutbound(context.WithoutCancel(ctx), out); err != nil {
		g.log.Warn("approval message not published", "id", a.ID, "err", err)
	}
}

// deniedResult is what the model reads of a step that was not approved.
func deniedResult(what string, d agent.Decision) string {
	who := "the operator"
	switch d.By {
	case "timeout":
		return "error: " + what + " needs a person's approval, and none came in time: denied. Do not try it again; tell the user it was not approved."
	case "stop", "error":
		return "error: " + what + " needs a person's approval, which could not be asked: " + d.Reason
	case agent.Operator:
	default:
		who = "the user (" + d.By + ")"
	}
	s := "error: " + who + " denied " + what
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	return s + ". Do not try it again; go on without it."
}

// approveTask asks for approval of a delegated task whose kind needs it,
// before any work; a denial fails the task with the reason.
func (l *Loop) approveTask(ctx context.Context, turn *agent.Turn) ([]agent.Message, string, error) {
	in := turn.Inbound
	if l.gate == nil || in.Kind != bus.KindTask {
		return nil, "", nil
	}
	text := in.Content
	if in.Note != nil {
		text = in.Note.Text // the task itself, not the note's header
	}
	if !l.gate.cfg.taskNeeds(text) {
		return nil, "", nil
	}
	d := l.gate.ask(ctx, turn, ApprovalTask, "work on a task from "+turn.Inbound.SenderID, text)
	if d.Allow {
		return nil, "", nil
	}
	reason := "not approved"
	switch d.By {
	case "timeout":
		reason = "not approved: no one answered within " + l.gate.cfg.Timeout.String()
	case "stop", "error":
		reason = "not approved: " + d.Reason
	default:
		reason = "not approved: denied by " + d.By
		if d.Reason != "" {
			reason += ": " + d.Reason
		}
	}
	return nil, "", &agent.TaskFailure{Reason: reason}
}
