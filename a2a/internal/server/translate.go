package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// translate returns the A2A events of one update of a task whose last
// state is last (docs/a2a.md has the table):
//
//	pending                 nothing (the task is submitted already)
//	accepted, working       working (again only with a text: progress)
//	completed               an artifact of the result, then completed
//	failed, rejected,       that state, the reason as its message
//	canceled
//	a note from the agent   working, the note as its message
//	a question              input-required, the question as its message
//	an approval it waits    input-required, saying what waits and how to
//	for                     answer
//	that approval decided   working, saying who decided
func (s *Server) translate(ctx context.Context, ec *a2asrv.ExecutorContext, u update, last a2a.TaskState) []a2a.Event {
	text := ""
	for _, p := range u.parts {
		if p.Type == envelope.PartText && p.Text != "" {
			text = strings.TrimSpace(text + "\n" + p.Text)
		}
	}
	status := func(state a2a.TaskState, msg string) a2a.Event {
		return a2a.NewStatusUpdateEvent(ec, state, convert.AgentMessage(ec, msg))
	}
	switch u.kind {
	case kindNote:
		return []a2a.Event{status(a2a.TaskStateWorking, text)}
	case kindQuestion:
		s.setWaiting(ctx, ec.TaskID, &waiting{Kind: waitQuestion, ID: u.id, From: u.from})
		return []a2a.Event{status(a2a.TaskStateInputRequired, u.from+" asks: "+text)}
	case kindApproval:
		s.setWaiting(ctx, ec.TaskID, &waiting{Kind: waitApproval, ID: u.id, From: u.from})
		return []a2a.Event{status(a2a.TaskStateInputRequired, s.approvalQuestion(u))}
	case kindDecided:
		s.setWaiting(ctx, ec.TaskID, nil)
		return []a2a.Event{status(a2a.TaskStateWorking, decidedText(u))}
	}
	state := convert.ToA2A(u.state)
	switch {
	case u.state == envelope.StatePending:
		return nil
	case state == a2a.TaskStateWorking:
		if last == a2a.TaskStateWorking && text == "" {
			return nil
		}
		return []a2a.Event{status(a2a.TaskStateWorking, text)}
	case state == a2a.TaskStateCompleted:
		var out []a2a.Event
		if parts := convert.ToA2AParts(u.parts); len(parts) > 0 {
			art := a2a.NewArtifactEvent(ec, parts...)
			art.Artifact.Name = "result"
			art.LastChunk = true
			out = append(out, art)
		}
		return append(out, status(a2a.TaskStateCompleted, ""))
	default: // failed, rejected, canceled
		msg := u.reason
		if text != "" {
			msg = strings.TrimSpace(msg + "\n" + text)
		}
		if msg == "" {
			msg = u.from + " ended the task " + string(u.state)
		}
		return []a2a.Event{status(state, msg)}
	}
}

// setWaiting records what task id waits for (nil: nothing).
func (s *Server) setWaiting(ctx context.Context, id a2a.TaskID, w *waiting) {
	if err := s.tasks.setSide(ctx, id, func(sd *side) { sd.Waiting = w }); err != nil {
		s.log.Warn("a2a task's wait not recorded", "task", id, "err", err)
	}
}

// approvalQuestion says what an input-required task waits for: a
// person's approval, and how it can be given.
func (s *Server) approvalQuestion(u update) string {
	what := "a step"
	if u.approval != nil {
		what = u.approval.Action
		if u.approval.Detail != "" {
			what += " (" + u.approval.Detail + ")"
		}
	}
	q := fmt.Sprintf("%s waits for a person's approval to %s (approval %s).", u.from, what, u.id)
	if s.cfg.ClientApproves {
		return q + ` Answer "approve" or "deny".`
	}
	return q + " An operator decides it: switchboard approvals approve|deny " + u.id + ", or the console."
}

// decidedText says who decided the approval a task waited for.
func decidedText(u update) string {
	a := u.approval
	if a == nil || a.Decision == nil {
		return "the approval " + u.id + " is no longer waited for"
	}
	return fmt.Sprintf("%s by %s: %s", a.Decision.Verb(), a.Decision.By, a.Action)
}
