package remote

import (
	"context"
	"iter"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// ask asks the delegator the question of a remote task that waits for
// input, waits for the answer, and sends it to the agent. It returns nil
// when the run stops first.
func (r *run) ask(ctx context.Context) iter.Seq2[a2a.Event, error] {
	s, _ := r.p.open.get(r.id())
	if s.Question == "" {
		question := r.status
		if question == "" {
			question = "the agent needs more input"
		}
		// The answer may come before Post returns: the participant takes
		// no message until the question is known to be this run's.
		r.p.mu.Lock()
		msg, err := r.p.ch.Post(ctx, route.Request{To: r.task.From, Type: envelope.TypeMessage, TaskID: r.id(),
			ThreadID: r.task.ThreadID, ExpectsReply: true, Text: r.p.cfg.Name + " asks: " + question})
		if err == nil {
			r.p.asked[msg.ID] = r
		}
		r.p.mu.Unlock()
		if err != nil {
			r.state, r.status = a2a.TaskStateFailed, "the agent wants input, and the question could not be asked: "+err.Error()
			return emptyEvents
		}
		s.Question = msg.ID
		if err := r.p.open.set(ctx, r.id(), s); err != nil {
			r.p.log.Warn("a2a question not recorded", "task", r.id(), "err", err)
		}
	}
	select {
	case <-ctx.Done():
		return nil
	case a := <-r.answers:
		follow := a2a.NewMessage(a2a.MessageRoleUser, convert.ToA2AParts(a.parts)...)
		follow.TaskID, follow.ContextID = a2a.TaskID(r.remoteID), r.contextID
		r.state = a2a.TaskStateWorking
		events := r.send(ctx, follow)
		return func(yield func(a2a.Event, error) bool) {
			taken := false
			for ev, err := range events {
				if err != nil && !taken && ctx.Err() != nil {
					return // stopping: the answer comes back at the next start
				}
				if err != nil && !taken {
					// The agent did not take the answer: the task cannot go on.
					r.state, r.status = a2a.TaskStateFailed, "the answer could not be sent to the agent: "+err.Error()
					a.done()
					return
				}
				if !taken {
					// The agent has the answer: the question is settled, and
					// the answer acknowledged (a crash before brings it back).
					taken = true
					s.Question = ""
					if err := r.p.open.set(ctx, r.id(), s); err != nil {
						r.p.log.Warn("a2a answer not recorded", "task", r.id(), "err", err)
					}
					a.done()
				}
				if !yield(ev, err) {
					return
				}
			}
		}
	}
}

// emptyEvents is a sequence of no events.
func emptyEvents(func(a2a.Event, error) bool) {}

// finish ends the mailbox task as the remote task ended: completed with
// the text of its artifacts (or its reply, or its status message) and
// their other parts; failed, rejected or wanting authentication as
// failed, with the agent's words as the reason; canceled.
func (r *run) finish() {
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	state, reason, text := envelope.StateCompleted, "", ""
	var parts []envelope.Part
	if r.message != nil {
		text = convert.MessageText(r.message)
		parts = nonText(convert.FromA2AParts(r.message.Parts))
	} else {
		var texts []string
		for _, a := range r.artifacts {
			if t := convert.Text(a.Parts); t != "" {
				texts = append(texts, t)
			}
			parts = append(parts, nonText(convert.FromA2AParts(a.Parts))...)
		}
		text = strings.Join(texts, "\n")
		if text == "" {
			text = r.status
		}
		if st, ok := convert.ToMailbox(r.state); ok && st != envelope.StateCompleted {
			state, text, parts = st, "", nil
			reason = convert.Short(r.state) + " by " + r.p.cfg.Name
			if r.status != "" {
				reason += ": " + r.status
			}
		}
	}
	if _, err := r.p.ch.FinishTask(ctx, r.id(), state, text, reason, parts); err != nil {
		r.p.log.Warn("a2a task not ended in the mailbox", "task", r.id(), "state", state, "err", err)
	}
	if err := r.p.open.forget(ctx, r.id()); err != nil {
		r.p.log.Warn("ended a2a task not forgotten", "task", r.id(), "err", err)
	}
}

// cancelRemote tells the agent the task is canceled, and forgets it.
func (r *run) cancelRemote(why string) {
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	if r.remoteID != "" {
		client, _ := r.p.current()
		if _, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: a2a.TaskID(r.remoteID)}); err != nil {
			r.p.log.Info("a2a task not canceled at the agent", "task", r.id(), "remote", r.remoteID, "err", err)
		}
	}
	if err := r.p.open.forget(ctx, r.id()); err != nil {
		r.p.log.Warn("canceled a2a task not forgotten", "task", r.id(), "err", err)
	}
	r.p.log.Info("a2a task stopped", "task", r.id(), "why", why)
}

// nonText returns the parts that are not text.
func nonText(parts []envelope.Part) []envelope.Part {
	var out []envelope.Part
	for _, p := range parts {
		if p.Type != envelope.PartText {
			out = append(out, p)
		}
	}
	return out
}
