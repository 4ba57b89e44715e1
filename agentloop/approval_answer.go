package agentloop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
)

// Who may answer an approval in its chat.
//
// Only a person decides: the user whose message started the turn (the
// chat platform's sender id, which the chat's channel vouches for), or,
// in the operator's chat (ApprovalConfig.Channel), any of its users; and
// the operator through the command line or the console, who decides in
// the book. A message from another agent (bus.InboundMessage.Note is set:
// the mailbox, routed into the chat by a callback or not, a reply or not)
// never decides, whatever its sender claims to be or proves it is: an
// agent may ask for the work, not allow it. A refused answer is logged,
// recorded in the book when it keeps a record (agent.RefusalRecorder),
// and goes its usual way as a message; the approval still waits.

// Why an answer does not decide.
const (
	refusedAgent = "a message from another agent never decides an approval"
	refusedUser  = "only %s, who was asked, may decide it"
)

// take hands in to the oldest approval waiting in its chat when in
// answers it ("approve", "deny", optionally followed by the approval's
// id) and may decide it, and reports whether it did; in is then finished.
// An answer from someone who may not decide is refused (see mayDecide);
// it, and anything else, goes its usual way.
func (g *gate) take(ctx context.Context, in bus.InboundMessage) bool {
	allow, id, ok := parseAnswer(in.Content)
	if !ok {
		return false
	}
	key := chatKey(in.Channel, in.ChatID)
	g.mu.Lock()
	ws := g.waiting[key]
	var w *waiter
	for _, x := range ws {
		if id == "" || x.id == id {
			w = x
			break
		}
	}
	if w == nil {
		g.mu.Unlock()
		return false
	}
	if why := mayDecide(in, w); why != "" {
		g.mu.Unlock()
		g.refuse(ctx, in, w, allow, why)
		return false
	}
	g.waiting[key] = slices.DeleteFunc(ws, func(x *waiter) bool { return x == w })
	g.mu.Unlock()
	w.answer <- agent.Decision{Allow: allow, By: in.SenderID, Time: g.clk.Now()}
	in.Done()
	return true
}

// mayDecide returns why in may not decide the approval w ("" when it
// may): it comes from another agent, or from a user of the chat other
// than the one asked. This is where a verified sender would be checked;
// a message from an agent is refused even then.
func mayDecide(in bus.InboundMessage, w *waiter) string {
	switch {
	case in.Note != nil:
		return refusedAgent
	case !w.anyone && in.SenderID != w.asker:
		return fmt.Sprintf(refusedUser, orUnknown(w.asker))
	}
	return ""
}

// orUnknown is s, or "the user" when s is empty.
func orUnknown(s string) string {
	if s == "" {
		return "the user"
	}
	return s
}

// refuse logs that in, an answer to w, was refused, and records it in the
// book when the book keeps such records.
func (g *gate) refuse(ctx context.Context, in bus.InboundMessage, w *waiter, allow bool, why string) {
	r := agent.Refusal{Allow: allow, By: in.SenderID, FromAgent: in.Note != nil, MessageID: in.ID, Reason: why, Time: g.clk.Now()}
	if in.Note != nil && in.Note.From != "" {
		r.By = in.Note.From // the agent, whatever sender the message names
	}
	if r.By == "" {
		r.By = "unknown"
	}
	g.log.Warn("approval answer refused", "id", w.id, "by", r.By, "channel", in.Channel, "message", in.ID, "reason", why)
	if rec, ok := g.cfg.Book.(agent.RefusalRecorder); ok {
		rec.RecordRefusal(context.WithoutCancel(ctx), w.approval, r)
	}
}

// parseAnswer reads "approve", "yes", "deny", "no", ... with an optional
// approval id after it.
func parseAnswer(text string) (allow bool, id string, ok bool) {
	f := strings.Fields(strings.ToLower(text))
	if len(f) == 0 || len(f) > 2 {
		return false, "", false
	}
	word := strings.Trim(f[0], ".!")
	if len(f) == 2 {
		id = f[1]
	}
	switch word {
	case "approve", "approved", "yes", "y", "ok", "allow":
		return true, id, true
	case "deny", "denied", "no", "n", "reject":
		return false, id, true
	}
	return false, "", false
}
