package mailbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/escalate"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// This file acts on escalations (escalation.go starts them): the agent
// that escalated watches its escalations on the store, acts on each
// decision (retry, reassign, cancel, take over), and hands one whose
// level did not answer in its time to the next level. A decision is made
// by a level's agent (DecideEscalation, the answer_escalation tool), by a
// person in the chat (TakeAnswer), on the command line or in the console
// (package operator); whoever decides first, in any process, decides.
// The escalations are on the store, so one survives the crash of its
// agent: the agent acts on it when it starts again.

// escalationTick is how often the agent looks at its escalations: for a
// decision made elsewhere and for a level's time that ran out.
const escalationTick = time.Second

// escalationLoop tends this agent's escalations at every tick of t, and
// when poked (a decision made in this process).
func (c *Channel) escalationLoop(ctx context.Context, t clock.Ticker) {
	defer t.Stop()
	for {
		c.tendEscalations(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		case <-c.escPoke:
		}
	}
}

// pokeEscalations has the escalation loop look at once.
func (c *Channel) pokeEscalations() {
	select {
	case c.escPoke <- struct{}{}:
	default:
	}
}

// tendEscalations acts on the decisions of this agent's escalations, and
// climbs those whose level's time ran out.
func (c *Channel) tendEscalations(ctx context.Context) {
	be := c.Backend()
	if be == nil {
		return
	}
	list, err := be.Escalations().List(ctx)
	if err != nil {
		if ctx.Err() == nil {
			c.Logger().Warn("escalations not read", "err", err)
		}
		return
	}
	for _, e := range list {
		if e.Agent != c.cfg.AgentID || ctx.Err() != nil {
			continue
		}
		var rec ledger.Record
		if err := json.Unmarshal(e.Task, &rec); err != nil {
			c.Logger().Warn("escalation unreadable: removed", "escalation", e.ID, "err", err)
			c.endEscalation(ctx, e)
			continue
		}
		switch {
		case e.Decision != nil:
			c.act(ctx, e, rec)
		case !c.clk.Now().Before(e.Due):
			if !c.climb(ctx, &e, e.At()+" did not answer in time; ") {
				c.exhaust(ctx, e, rec)
			}
		}
	}
}

// act carries out e's decision on task rec and ends e.
func (c *Channel) act(ctx context.Context, e store.Escalation, rec ledger.Record) {
	d := *e.Decision
	done := escalate.Decided(d)
	var err error
	switch d.Action {
	case store.ActRetry:
		target := rec.To
		if _, name, ok := rec.Group(); ok {
			target = "any:" + name
		}
		done, err = c.redo(ctx, rec, target, done)
	case store.ActReassign:
		done, err = c.redo(ctx, rec, d.Agent, done)
	case store.ActTakeOver:
		if d.Level != escalate.Human {
			done, err = c.redo(ctx, rec, d.By, done)
			break
		}
		c.failEscalated(ctx, rec, envelope.StateCanceled, "taken over by "+d.By+orWord(prefixed(": ", d.Reason), ""))
	case store.ActCancel:
		c.failEscalated(ctx, rec, envelope.StateCanceled, "canceled by "+d.By+orWord(prefixed(": ", d.Reason), ""))
	}
	if err != nil {
		done += fmt.Sprintf(", but the task could not be sent: %v", err)
		c.failEscalated(ctx, rec, envelope.StateFailed, done)
	}
	c.record(ctx, store.Event{Kind: store.EventEscalation, Ref: e.ID, TaskID: e.TaskID, ThreadID: e.ThreadID, From: d.By,
		Reason: "done: " + done})
	c.Logger().Info("escalation decided", "escalation", e.ID, "task", e.TaskID, "action", d.Action, "by", d.By, "what", done)
	c.endEscalation(ctx, e)
}

// prefixed is p+s, or "" when s is empty.
func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// redo sends the task of rec again, as a new task, to target (an agent or
// a group), from the conversation it began in, and returns done with
// where it went.
func (c *Channel) redo(ctx context.Context, rec ledger.Record, target, done string) (string, error) {
	req := route.Request{Type: envelope.TypeTask, Parts: rec.Parts, Callback: rec.Callback, ThreadID: rec.ThreadID,
		Budget: rec.Budget, Tree: meta.TreeAt(rec.ParentTask, rec.ParentPath)}
	if rec.Deadline != nil {
		req.Deadline = c.clk.Now().Add(rec.Deadline.Sub(rec.SentAt.Time))
	}
	out, err := c.PostTo(ctx, target, req)
	if err != nil {
		return done, err
	}
	var to []string
	for _, m := range out.Sent {
		to = append(to, fmt.Sprintf("%s (task %s)", m.To, m.Task.ID))
	}
	return fmt.Sprintf("%s; sent to %v", done, to), nil
}

// DecideEscalation decides escalation id as this agent, a level it asks
// (the answer_escalation tool): d's Action, Agent and Reason; who and
// when are set here. An agent that was not asked may not decide it.
func (c *Channel) DecideEscalation(ctx context.Context, id string, d store.EscalationDecision) (store.Escalation, error) {
	be := c.Backend()
	if be == nil {
		return store.Escalation{}, ErrNotRunning
	}
	e, err := be.Escalations().Get(ctx, id)
	if err != nil {
		return e, err
	}
	me := c.cfg.AgentID
	asked := e.AskedAt == me || e.Level >= 0 && slices.Contains(e.Levels[:min(e.Level+1, len(e.Levels))], me)
	if !asked {
		return e, fmt.Errorf("escalation %s is not for %s to decide: it asks %s", id, me, orWord(e.AskedAt, e.At()))
	}
	d.By, d.Level, d.Time = me, e.At(), c.clk.Now()
	return c.decideEscalation(ctx, id, d)
}

// decideEscalation records decision d of escalation id, and its step in
// the audit log.
func (c *Channel) decideEscalation(ctx context.Context, id string, d store.EscalationDecision) (store.Escalation, error) {
	e, err := c.backend.Escalations().Decide(ctx, id, d)
	if err != nil {
		return e, err
	}
	c.record(ctx, store.Event{Kind: store.EventEscalation, Agent: e.Agent, Ref: e.ID, TaskID: e.TaskID, ThreadID: e.ThreadID,
		From: d.By, Reason: "decided: " + escalate.Decided(d)})
	if e.Agent == c.cfg.AgentID {
		c.pokeEscalations()
	}
	return e, nil
}

// TakeAnswer takes in, a person's message in a chat where one of this
// agent's escalations asks the human level, when it is an answer ("1" to
// "4" or the words, at most escalate.MaxAnswerWords words): it decides
// the escalation, or, when it cannot be read, tells the person why and
// leaves the escalation waiting; in is then finished. Any other message
// goes its usual way (false). A message from another agent never
// answers.
func (c *Channel) TakeAnswer(ctx context.Context, in bus.InboundMessage) bool {
	be := c.Backend()
	if be == nil || in.Note != nil || in.Channel == ChannelName || !c.cfg.Escalation.Enabled() {
		return false
	}
	list, err := be.Escalations().List(ctx)
	if err != nil {
		return false
	}
	list = slices.DeleteFunc(list, func(e store.Escalation) bool {
		return e.Agent != c.cfg.AgentID || e.Decision != nil || e.At() != escalate.Human || e.Chat == nil ||
			e.Chat.Channel != in.Channel || chatIDOf(*e.Chat) != in.ChatID
	})
	if len(list) == 0 {
		return false
	}
	ids := make([]string, len(list))
	for i, e := range list {
		ids[i] = e.ID
	}
	a, attempt, err := escalate.ParseAnswer(in.Content, ids)
	if !attempt {
		return false
	}
	e := list[0]
	if i := slices.Index(ids, a.ID); i >= 0 {
		e = list[i]
	}
	cb := *e.Chat
	defer in.Done()
	if err != nil {
		c.say(ctx, cb, fmt.Sprintf("%v Your request %s still waits for your answer. (escalation %s)", err, escalate.Quote(e.Asked), e.ID))
		return true
	}
	d := store.EscalationDecision{Action: a.Action, Agent: a.Agent, By: orWord(in.SenderID, "the user"), Level: escalate.Human,
		Time: c.clk.Now()}
	if _, err := c.decideEscalation(ctx, e.ID, d); err != nil {
		if errors.Is(err, store.ErrEscalationDecided) {
			c.say(ctx, cb, fmt.Sprintf("Escalation %s was decided already; your answer changes nothing.", e.ID))
			return true
		}
		c.say(ctx, cb, fmt.Sprintf("Your answer was not recorded: %v. (escalation %s)", err, e.ID))
		return true
	}
	d.By = "you"
	c.say(ctx, cb, fmt.Sprintf("OK: %s. (escalation %s)", escalate.Decided(d), e.ID))
	return true
}
