package mailbox

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// errNoBook is the error of an approval asked before the channel's store
// is open.
var errNoBook = errors.New("the mailbox store is not open yet")

// ApprovalBook returns the book the agent loop keeps this agent's
// approvals in: the channel's store, where `switchboard approvals` and
// the console list and decide them. The book records in the audit log
// what goes through it: each approval asked, and each decision made
// through it (in the chat, at the timeout, at the agent's stop); a
// decision made elsewhere (the operator's) is recorded where it is made.
// An approval asked in the turn of a task canceled meanwhile is denied at
// once (ByCancel). The store is looked up at each call: the channel opens
// it when it starts.
func (c *Channel) ApprovalBook() agent.ApprovalBook { return approvalBook{c} }

// approvalBook is the ApprovalBook of a channel.
type approvalBook struct{ c *Channel }

var _ agent.ApprovalBook = approvalBook{}

func (b approvalBook) book() (agent.ApprovalBook, error) {
	st := b.c.Backend()
	if st == nil {
		return nil, errNoBook
	}
	return st.Approvals(), nil
}

// PutApproval implements agent.ApprovalBook. An approval asked in the
// turn of a task canceled meanwhile (the cancel came while the turn was
// under way) is denied at once, as the cancel denies those asked before
// it: the waiting turn reads the decision and goes on.
func (b approvalBook) PutApproval(ctx context.Context, a agent.Approval) error {
	ab, err := b.book()
	if err != nil {
		return err
	}
	if err := ab.PutApproval(ctx, a); err != nil {
		return err
	}
	b.c.recordApproval(ctx, a)
	if b.c.Canceled(a.TaskID) {
		d := agent.Decision{By: ByCancel, Reason: "the task was canceled", Time: a.Created}
		got, err := ab.DecideApproval(ctx, a.ID, d)
		switch {
		case err == nil:
			b.c.recordApproval(ctx, got)
		case !errors.Is(err, agent.ErrDecided):
			b.c.Logger().Warn("approval of a canceled task not denied", "id", a.ID, "task", a.TaskID, "err", err)
		}
	}
	return nil
}

// GetApproval implements agent.ApprovalBook.
func (b approvalBook) GetApproval(ctx context.Context, id string) (agent.Approval, error) {
	ab, err := b.book()
	if err != nil {
		return agent.Approval{}, err
	}
	return ab.GetApproval(ctx, id)
}

// ListApprovals implements agent.ApprovalBook.
func (b approvalBook) ListApprovals(ctx context.Context) ([]agent.Approval, error) {
	ab, err := b.book()
	if err != nil {
		return nil, err
	}
	return ab.ListApprovals(ctx)
}

// DecideApproval implements agent.ApprovalBook; the decision that is
// recorded is in the audit log (one that loses to another's is not).
func (b approvalBook) DecideApproval(ctx context.Context, id string, d agent.Decision) (agent.Approval, error) {
	ab, err := b.book()
	if err != nil {
		return agent.Approval{}, err
	}
	got, err := ab.DecideApproval(ctx, id, d)
	if err == nil {
		b.c.recordApproval(ctx, got)
	}
	return got, err
}

// DeleteApproval implements agent.ApprovalBook.
func (b approvalBook) DeleteApproval(ctx context.Context, id string) error {
	ab, err := b.book()
	if err != nil {
		return err
	}
	return ab.DeleteApproval(ctx, id)
}

// recordApproval appends to the audit log what happened to a: asked, or
// decided (Approval.Summary).
func (c *Channel) recordApproval(ctx context.Context, a agent.Approval) {
	if c.Backend() == nil {
		return
	}
	c.record(ctx, store.Event{Kind: store.EventApproval, Agent: a.Agent, From: a.Agent, Ref: a.ID,
		Reason: a.Summary(), MessageID: a.MessageID, TaskID: a.TaskID})
}

var _ agent.RefusalRecorder = approvalBook{}

// RecordRefusal implements agent.RefusalRecorder: a refused answer is in
// the audit log with the approval's other steps; one that came from
// another agent names that agent and its message.
func (b approvalBook) RecordRefusal(ctx context.Context, a agent.Approval, r agent.Refusal) {
	if b.c.Backend() == nil {
		return
	}
	ev := store.Event{Kind: store.EventApproval, Agent: a.Agent, From: a.Agent, Ref: a.ID,
		Reason: r.Summary(a), MessageID: a.MessageID, TaskID: a.TaskID}
	if r.FromAgent {
		ev.From, ev.MessageID = r.By, r.MessageID
	}
	b.c.record(ctx, ev)
}
