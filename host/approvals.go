package host

import (
	"context"
	"errors"
	"log/slog"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// errNoBook is the error of an approval asked before the mailbox's store
// is open.
var errNoBook = errors.New("the mailbox store keeps no approvals")

// mailboxBook keeps the loop's approvals in the mailbox's store, where
// `switchboard approvals` and the console find them. The store is looked
// up at each call: the channel opens it when it starts.
type mailboxBook struct {
	mb  *mailbox.Channel
	log *slog.Logger
}

var _ agent.ApprovalBook = mailboxBook{}

func (b mailboxBook) book() (agent.ApprovalBook, error) {
	st := b.mb.Backend()
	if st == nil {
		return nil, errNoBook
	}
	return st.Approvals(), nil
}

// PutApproval implements store.ApprovalBook. An approval asked in the turn
// of a task canceled meanwhile (the cancel came while the turn was under
// way) is denied at once, as the cancel denies those asked before it: the
// waiting turn reads the decision and goes on.
func (b mailboxBook) PutApproval(ctx context.Context, a agent.Approval) error {
	ab, err := b.book()
	if err != nil {
		return err
	}
	if err := ab.PutApproval(ctx, a); err != nil {
		return err
	}
	if b.mb.Canceled(a.TaskID) {
		d := agent.Decision{By: mailbox.ByCancel, Reason: "the task was canceled", Time: a.Created}
		if _, err := ab.DecideApproval(ctx, a.ID, d); err != nil && !errors.Is(err, agent.ErrDecided) {
			b.log.Warn("approval of a canceled task not denied", "id", a.ID, "task", a.TaskID, "err", err)
		}
	}
	return nil
}

// GetApproval implements store.ApprovalBook.
func (b mailboxBook) GetApproval(ctx context.Context, id string) (agent.Approval, error) {
	ab, err := b.book()
	if err != nil {
		return agent.Approval{}, err
	}
	return ab.GetApproval(ctx, id)
}

// ListApprovals implements store.ApprovalBook.
func (b mailboxBook) ListApprovals(ctx context.Context) ([]agent.Approval, error) {
	ab, err := b.book()
	if err != nil {
		return nil, err
	}
	return ab.ListApprovals(ctx)
}

// DecideApproval implements store.ApprovalBook.
func (b mailboxBook) DecideApproval(ctx context.Context, id string, d agent.Decision) (agent.Approval, error) {
	ab, err := b.book()
	if err != nil {
		return agent.Approval{}, err
	}
	return ab.DecideApproval(ctx, id, d)
}

// DeleteApproval implements store.ApprovalBook.
func (b mailboxBook) DeleteApproval(ctx context.Context, id string) error {
	ab, err := b.book()
	if err != nil {
		return err
	}
	return ab.DeleteApproval(ctx, id)
}

// record appends ev to the mailbox store's audit log, when it keeps one.
func (b mailboxBook) record(ctx context.Context, ev store.Event) {
	if st := b.mb.Backend(); st != nil {
		if err := st.Record(ctx, ev); err != nil && !errors.Is(err, store.ErrNotSupported) {
			b.log.Warn("approval not recorded in the audit log", "id", ev.Ref, "err", err)
		}
	}
}
