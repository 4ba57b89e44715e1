package mailbox

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/escalate"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// This file starts escalations and climbs them (seed 004; docs/
// guardrails.md, "When work gets stuck"). When a task this agent
// delegated is stuck (a trigger of channels.mailbox.escalation: rejected
// by every holder, failed, not accepted in time, overdue, a stalemate, a
// deadlock broken), the failure does not go to the conversation: the
// agent keeps an escalation on the store (store.Escalations) with the
// task's context, and asks its first level: an agent or a group's agent
// gets a mailbox message in the task's thread, answered with the
// answer_escalation tool; a person is asked in the chat (or decides on
// the command line or in the console). The user is told once where the
// request stands. A level that does not answer in its time hands the
// escalation to the next; past the last the task fails as it would have
// without escalation. escalation_act.go acts on the decisions.

// escalate starts an escalation of task rec, which this agent delegated,
// for trigger: its worker (rec.To) said said (its state, "rejected"), with
// reason. It reports whether it did; false (escalation is not configured
// for the trigger, the task's content was not kept, no level could be
// asked) leaves the failure to go on as without escalation. The old
// worker is told the task is canceled unless it ended it.
func (c *Channel) escalate(ctx context.Context, rec ledger.Record, trigger, said, reason string) bool {
	cfg := c.cfg.Escalation
	be := c.Backend()
	if be == nil || !cfg.Triggered(trigger) || len(rec.Parts) == 0 {
		return false
	}
	task, err := json.Marshal(rec)
	if err != nil {
		return false
	}
	id, err := uuid.NewV7()
	if err != nil {
		return false
	}
	e := store.Escalation{ID: id.String(), Agent: c.cfg.AgentID, TaskID: rec.TaskID, ThreadID: rec.ThreadID,
		Trigger: trigger, Asked: partsText(rec.Parts), Trace: append(slices.Clone(rec.ParentPath), c.cfg.AgentID),
		Levels: slices.Clone(cfg.Levels), Level: -1, Task: task, Created: c.clk.Now()}
	for _, a := range rec.Tried {
		e.Attempts = append(e.Attempts, store.Attempt{Agent: a, Said: orWord(rec.Said[a], "offered it, passed it on")})
	}
	e.Attempts = append(e.Attempts, store.Attempt{Agent: rec.To, Said: said, Reason: reason})
	switch {
	case cfg.Channel != "":
		e.Chat = &envelope.Callback{Channel: cfg.Channel, ChatID: cfg.ChatID}
	case userChat(rec.Callback):
		cb := *rec.Callback
		e.Chat = &cb
	}
	if !c.climb(ctx, &e, fmt.Sprintf("escalated (%s): %s; ", trigger, escalate.Tried(e))) {
		return false
	}
	c.Logger().Warn("delegated task escalated", "task", rec.TaskID, "trigger", trigger, "escalation", e.ID, "level", e.At())
	if e.At() != escalate.Human && userChat(rec.Callback) {
		c.say(ctx, *rec.Callback, escalate.Status(e)) // once; a person asked is told by the question
	}
	c.pokeEscalations()
	return true
}

// userChat reports whether cb is a person's chat (not another agent's
// conversation through the mailbox).
func userChat(cb *envelope.Callback) bool {
	return cb != nil && cb.Channel != "" && cb.Channel != ChannelName
}

// climb asks the level after e's current one that can be asked, saves e
// (before the level is asked, so that the escalation is on the store
// when its question is out) and reports whether one was; false when none
// is left. The audit log gets why, followed by "asked LEVEL".
func (c *Channel) climb(ctx context.Context, e *store.Escalation, why string) bool {
	for e.Level+1 < len(e.Levels) {
		e.Level++
		e.Since = c.clk.Now()
		wait := c.cfg.Escalation.LevelTimeout(e.Level)
		e.Due = e.Since.Add(wait)
		cands := c.candidates(ctx, *e)
		to, err := c.levelAgent(ctx, e.At())
		if err == nil {
			e.AskedAt = to
			if err = c.backend.Escalations().Save(ctx, *e); err != nil {
				c.Logger().Warn("escalation not saved", "escalation", e.ID, "err", err)
				return false
			}
			c.record(ctx, store.Event{Kind: store.EventEscalation, Ref: e.ID, TaskID: e.TaskID, ThreadID: e.ThreadID,
				Reason: why + "asked " + e.At()})
			err = c.ask(ctx, *e, cands, wait)
		}
		if err != nil {
			c.Logger().Warn("escalation level not asked", "escalation", e.ID, "level", e.At(), "err", err)
			c.record(ctx, store.Event{Kind: store.EventEscalation, Ref: e.ID, TaskID: e.TaskID, ThreadID: e.ThreadID,
				Reason: fmt.Sprintf("%slevel %s skipped: %v", why, e.At(), err)})
			why = ""
			continue
		}
		return true
	}
	return false
}

// levelAgent returns the agent level asks: the agent it names, one
// online agent of a group (the one with the most free task slots), or ""
// for a person.
func (c *Channel) levelAgent(ctx context.Context, level string) (string, error) {
	if level == escalate.Human {
		return "", nil
	}
	if !escalate.IsGroup(level) {
		return level, nil
	}
	agents, err := c.Agents(ctx, true)
	if err != nil {
		return "", err
	}
	kind, name, _ := strings.Cut(level, ":")
	match := view.ByCapability(name)
	if kind == "role" {
		match = view.ByRole(name)
	}
	holders := view.Holders(agents, c.cfg.AgentID, match)
	if len(holders) == 0 {
		return "", fmt.Errorf("no online agent in %s", level)
	}
	return holders[0].AgentID, nil
}

// ask asks e's current level: a person in e's chat, an agent (e.AskedAt)
// by a mailbox message in the task's thread.
func (c *Channel) ask(ctx context.Context, e store.Escalation, cands []string, wait time.Duration) error {
	if e.At() == escalate.Human {
		if e.Chat != nil {
			c.say(ctx, *e.Chat, escalate.HumanQuestion(e, cands, wait))
		}
		return nil // the command line and the console can answer it too
	}
	data := map[string]any{"escalation": map[string]any{"id": e.ID, "task_id": e.TaskID, "agent": e.Agent,
		"trigger": e.Trigger, "asked": e.Asked, "attempts": e.Attempts, "trace": e.Trace, "level": e.At(),
		"candidates": cands, "due": e.Due}}
	_, err := c.Post(ctx, route.Request{To: e.AskedAt, Subject: "escalation", ThreadID: e.ThreadID,
		Parts: []envelope.Part{{Type: envelope.PartText, Text: escalate.AgentQuestion(e, cands, wait)},
			{Type: envelope.PartData, Data: data}}})
	return err
}

// candidates are the online agents that could take e's task: holders of
// the group it was sent to first, then the others, leaving out this
// agent, those that tried it and the level asked.
func (c *Channel) candidates(ctx context.Context, e store.Escalation) []string {
	agents, err := c.Agents(ctx, true)
	if err != nil {
		return nil
	}
	var rec ledger.Record
	_ = json.Unmarshal(e.Task, &rec)
	skip := func(id string) bool {
		return id == c.cfg.AgentID || id == e.At() || slices.ContainsFunc(e.Attempts, func(a store.Attempt) bool { return a.Agent == id })
	}
	var first, rest []string
	_, name, group := rec.Group()
	for _, a := range view.Holders(agents, c.cfg.AgentID, func(view.Agent) bool { return true }) {
		switch {
		case skip(a.AgentID):
		case group && (a.HasCapability(name) || a.HasRole(name)):
			first = append(first, a.AgentID)
		default:
			rest = append(rest, a.AgentID)
		}
	}
	return append(first, rest...)
}

// say tells the person of chat cb text, from the channel itself.
func (c *Channel) say(ctx context.Context, cb envelope.Callback, text string) {
	out := bus.OutboundMessage{Channel: cb.Channel, ChatID: chatIDOf(cb), Content: text}
	if err := c.Bus().PublishOutbound(ctx, out); err != nil && ctx.Err() == nil {
		c.Logger().Warn("escalation not told in the chat", "channel", cb.Channel, "chat", out.ChatID, "err", err)
	}
}

// exhaust ends escalation e, which its last level did not answer: the
// task fails as it would have without escalation, with a reason that
// says who was asked, and the conversation it began in is told.
func (c *Channel) exhaust(ctx context.Context, e store.Escalation, rec ledger.Record) {
	why := escalate.Unanswered(e)
	c.record(ctx, store.Event{Kind: store.EventEscalation, Ref: e.ID, TaskID: e.TaskID, ThreadID: e.ThreadID,
		Reason: "unanswered: " + why})
	c.Logger().Warn("escalation unanswered: the task fails", "escalation", e.ID, "task", e.TaskID)
	c.failEscalated(ctx, rec, envelope.StateFailed, why)
	c.endEscalation(ctx, e)
}

// failEscalated tells the conversation task rec began in that it ended
// in state with reason, as the final update of its worker would have.
func (c *Channel) failEscalated(ctx context.Context, rec ledger.Record, state envelope.TaskState, why string) {
	mt := meta.Meta{From: rec.To, To: c.cfg.AgentID, Type: envelope.TypeTaskUpdate, ThreadID: rec.ThreadID,
		Task: &envelope.Task{ID: rec.TaskID, State: state, Reason: why}, ReplyTo: rec.MessageID,
		Tree: meta.TreeAt(rec.ParentTask, rec.ParentPath)}
	c.notify(ctx, mt, rec.Callback, fmt.Sprintf("task %s delegated to %s: %s", rec.TaskID, rec.To, why))
}

// endEscalation removes e from the store.
func (c *Channel) endEscalation(ctx context.Context, e store.Escalation) {
	if err := c.backend.Escalations().Delete(ctx, e.ID); err != nil {
		c.Logger().Warn("escalation not removed", "escalation", e.ID, "err", err)
	}
}

// partsText is the text of a task's parts: what was asked.
func partsText(parts []envelope.Part) string {
	var b []string
	for _, p := range parts {
		switch {
		case p.Type == envelope.PartText && p.Text != "":
			b = append(b, p.Text)
		case p.Type == envelope.PartFile:
			b = append(b, "[file "+orWord(p.Name, p.Path)+"]")
		}
	}
	return strings.Join(b, "\n")
}

// orWord is s, or else when s is empty.
func orWord(s, or string) string {
	if s == "" {
		return or
	}
	return s
}
