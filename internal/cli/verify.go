package cli

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
)

// unverifiedMark follows the sender of a message whose sender nothing
// shows (unsigned, or not signed by the key pinned for it), wherever the
// command line shows one, as in the model's note (bus.Note).
const unverifiedMark = "(unverified)"

// senders judges, for the views (inbox, thread, watch), whether each
// message comes from the agent it names, as a receiver under the config's
// channels.mailbox.allowUnsigned and operatorKey would (keys.Checker),
// without pinning anything: a key never pinned is judged by the card's.
type senders struct {
	ctx context.Context
	c   *keys.Checker
}

// senders returns the judge of the messages of st (nil: every message is
// unverified, there being no store to find keys in).
func (a *app) senders(ctx context.Context, st *store.Store, s *settings) *senders {
	if st == nil {
		return &senders{ctx: ctx}
	}
	return &senders{ctx: ctx, c: keys.NewChecker(st, s.mailbox.Policy(), keys.CheckerOptions{ReadOnly: true})}
}

// check judges m; a store that cannot be read leaves it unverified, with
// the reason.
func (v *senders) check(m *envelope.Message) keys.Result {
	if v == nil || v.c == nil {
		return keys.Result{Verdict: keys.Unverified, Reason: "no store to find keys in"}
	}
	res, err := v.c.Check(v.ctx, m)
	if err != nil {
		return keys.Result{Verdict: keys.Unverified, Reason: "not checked: " + err.Error()}
	}
	return res
}

// from is the sender as the tables print it: the id, followed by
// "(unverified)" unless the message is verified.
func (v *senders) from(m *envelope.Message, res keys.Result) string {
	if res.Verdict == keys.Verified {
		return m.From
	}
	return m.From + " " + unverifiedMark
}

// checked adds the verdict to a message line: verified, or the reason it
// is not.
func (l messageLine) checked(res keys.Result) messageLine {
	if l.Message == nil {
		return l
	}
	ok := res.Verdict == keys.Verified
	l.Verified = &ok
	if !ok {
		l.Unverified = res.Reason
	}
	return l
}

// watchSenders returns the judge of the messages watch shows. A store
// opened only to watch (a broker's, store.Config.WatchOnly) cannot read
// keys: the store is opened again, read only, for them; done closes it.
func (a *app) watchSenders(ctx context.Context, m *mailboxStore) (who *senders, done func()) {
	s, err := a.settings()
	if err != nil {
		return a.senders(ctx, nil, nil), func() {}
	}
	if m.kind == backendFS {
		return a.senders(ctx, m.be, s), func() {}
	}
	r, _, err := a.openMailbox(true)
	if err != nil || r.be == nil {
		return a.senders(ctx, nil, s), func() {}
	}
	return a.senders(ctx, r.be, s), r.close
}
