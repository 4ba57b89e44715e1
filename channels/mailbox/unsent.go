package mailbox

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/backoff"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// This file is what becomes of an answer the store did not take (a full
// disk, a NATS server down): the answer is kept (ledger.Unsent, saved in
// the store), the message it answers is not acknowledged, and the answer
// is delivered again, as it is, with backoff while the process lives and
// from the next start on. Once the store takes it, what Post does after a
// delivery is done, and the message it answers is acknowledged (a task's
// request with its archive). Stop reports what is still owed.

// ErrUnsent is wrapped by Stop's error when answers the store did not
// take are still owed.
var ErrUnsent = errors.New("answers not sent")

// unsentRetry spaces the deliveries of unsent answers: 1 s, doubling up
// to a minute, jittered.
var unsentRetry = backoff.Policy{Initial: time.Second, Max: time.Minute}

// undelivered is Post's error when the store did not take the message it
// composed: the message, for keeping it (owe).
type undelivered struct {
	msg *envelope.Message
	err error
}

func (e *undelivered) Error() string { return e.err.Error() }
func (e *undelivered) Unwrap() error { return e.err }

// permanent reports whether a delivery failed for the message itself
// (malformed, too large, a bad agent id): delivering it again cannot
// succeed.
func permanent(err error) bool {
	return errors.Is(err, envelope.ErrMalformed) || errors.Is(err, envelope.ErrTooLarge) ||
		errors.Is(err, envelope.ErrBadAgentID)
}

// afterSent holds, by the id of the message an unsent answer answers,
// what to do once the answer is delivered: acknowledge that message (and
// archive its task), record a task's total.
type afterSent struct {
	mu   sync.Mutex
	byID map[string][]func()
	last error // the last delivery failure, for Stop's report
}

// add attaches fn to the answer to id.
func (a *afterSent) add(id string, fn func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.addLocked(id, fn)
}

// addIf attaches fn to the answer to id if owed reports one is still
// unsent, and reports whether it did: with settle, which runs under the
// same lock, fn is either run once the answer goes or not attached.
func (a *afterSent) addIf(id string, fn func(), owed func() bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !owed() {
		return false
	}
	a.addLocked(id, fn)
	return true
}

func (a *afterSent) addLocked(id string, fn func()) {
	if a.byID == nil {
		a.byID = map[string][]func(){}
	}
	a.byID[id] = append(a.byID[id], fn)
}

// settle runs sent (the answer to id is no longer owed) and returns
// what waited for that answer.
func (a *afterSent) settle(id string, sent func()) []func() {
	a.mu.Lock()
	defer a.mu.Unlock()
	sent()
	fns := a.byID[id]
	delete(a.byID, id)
	return fns
}

func (a *afterSent) failed(err error) {
	a.mu.Lock()
	a.last = err
	a.mu.Unlock()
}

func (a *afterSent) lastErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// owe keeps u's message, an answer the store did not take, to deliver it
// again; then (may be nil) runs once it is delivered. It reports false,
// keeping nothing, when the failure was the message's own (permanent).
func (c *Channel) owe(ctx context.Context, u *undelivered, then func()) bool {
	if permanent(u.err) {
		return false
	}
	c.after.failed(u.err)
	if then != nil {
		c.after.add(u.msg.ReplyTo, then)
	}
	attrs := append(meta.MessageLogAttrs(u.msg), "to", u.msg.To, "reply_to", u.msg.ReplyTo, "err", u.err)
	if err := c.unsent.Add(ctx, u.msg); err != nil {
		c.Logger().Error("answer not sent, nor saved: it is sent again while this process runs; if it stops first, the message it answers comes back at the next start",
			append(attrs, "save", err)...)
	} else {
		c.Logger().Warn("answer not sent; kept, and sent again until the store takes it", attrs...)
	}
	return true
}

// holdForUnsent attaches ack (the acknowledgement of message id) to the
// unsent answer to id, and reports whether there is one: the message is
// answered, and is acknowledged once its answer goes out.
func (c *Channel) holdForUnsent(id string, ack func()) bool {
	if c.unsent == nil {
		return false
	}
	return c.after.addIf(id, ack, func() bool {
		_, ok := c.unsent.Answering(id)
		return ok
	})
}

// sendUnsent delivers the unsent answers again until ctx ends: at once,
// then after each failure with backoff (unsentRetry), and whenever an
// answer is added.
func (c *Channel) sendUnsent(ctx context.Context) {
	pauses := unsentRetry.Start()
	for {
		failed := false
		for _, m := range c.unsent.List() {
			if err := c.backend.Deliver(ctx, m); err != nil {
				if ctx.Err() != nil {
					return
				}
				c.after.failed(err)
				failed = true
				continue
			}
			c.sentLate(ctx, m)
		}
		if !failed {
			pauses.Reset()
			select {
			case <-c.unsent.Changed():
			case <-ctx.Done():
				return
			}
			continue
		}
		if backoff.Sleep(ctx, c.clk, pauses.Next()) != nil {
			return
		}
	}
}

// sentLate finishes the send of m, an unsent answer the store took: what
// Post does after a delivery, and what waited for it.
func (c *Channel) sentLate(ctx context.Context, m *envelope.Message) {
	then := c.after.settle(m.ReplyTo, func() {
		if err := c.unsent.Remove(ctx, m.ID); err != nil {
			c.Logger().Warn("sent answer still listed as unsent; it is sent again at the next start (harmless)", "id", m.ID, "err", err)
		}
	})
	c.Logger().Info("answer sent late", append(meta.MessageLogAttrs(m), "to", m.To, "reply_to", m.ReplyTo)...)
	if meter := c.meterOf(); meter != nil {
		meter.Sent(m)
	}
	c.releaseAnswered(ctx, c.replies, m)
	for _, fn := range then {
		fn()
	}
}

// unsentReport is the error of a Stop that leaves answers unsent, nil
// when none is.
func (c *Channel) unsentReport() error {
	if c.unsent == nil {
		return nil
	}
	n, kept := c.unsent.Len()
	if n == 0 {
		return nil
	}
	where := "kept in the mailbox store, they are sent at the next start"
	if !kept {
		where = "not saved either: the messages they answer come back at the next start"
	}
	return fmt.Errorf("%w: %d answer(s) the store did not take (the last failure: %v); %s", ErrUnsent, n, c.after.lastErr(), where)
}
