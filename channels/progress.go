package channels

import (
	"context"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
)

// Progress is implemented by a channel whose platform can show that a
// message is being worked on: a typing indicator, a reaction on the
// message. A channel hands it to its Base with UseProgress; Base then calls
// Working for every message it hands over (again after a restart, too),
// and the function Working returned once the consumer has finished with
// the message (bus.InboundMessage.Done).
//
// Both run in goroutines of their own, each with a context bounded by
// ProgressTimeout, so that a slow platform never holds up the message or
// the answer. A notice is a courtesy: its errors are the implementation's
// to log, never a reason to refuse a message.
type Progress interface {
	// Working shows that msg is being worked on and returns how to
	// withdraw the notice (nil: nothing to withdraw).
	Working(ctx context.Context, msg bus.InboundMessage) (withdraw func(ctx context.Context))
}

// ProgressTimeout bounds each call Base makes to a Progress.
const ProgressTimeout = 30 * time.Second

// UseProgress makes Base show a progress notice with p for every message
// it hands over (see Progress). Call it before the channel starts.
func (b *Base) UseProgress(p Progress) { b.progress = p }

// notice is the progress notice of one message: Working may return before
// or after the consumer finished, and the notice is withdrawn once both
// happened.
type notice struct {
	p   Progress
	msg bus.InboundMessage // as Working sees it: without its Ack

	mu       sync.Mutex
	returned bool                      // Working returned
	withdraw func(ctx context.Context) // what it returned
	finished bool                      // the consumer finished
}

// withProgress returns msg with an Ack that also withdraws its notice,
// and the notice, to start once msg is handed over. Without a Progress it
// returns msg as it is and a nil notice.
func (b *Base) withProgress(msg bus.InboundMessage) (bus.InboundMessage, *notice) {
	if b.progress == nil {
		return msg, nil
	}
	view := msg
	view.Ack = nil
	n := &notice{p: b.progress, msg: view}
	ack := msg.Ack
	msg.Ack = func() {
		if ack != nil {
			ack()
		}
		n.finish()
	}
	return msg, n
}

// start shows the notice, in a goroutine. A nil notice does nothing.
func (n *notice) start() {
	if n == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), ProgressTimeout)
		w := n.p.Working(ctx, n.msg)
		cancel()
		n.mu.Lock()
		n.returned, n.withdraw = true, w
		finished := n.finished
		n.mu.Unlock()
		if finished {
			runWithdraw(w)
		}
	}()
}

// finish records that the consumer finished, and withdraws the notice if
// Working has returned (else Working's goroutine will).
func (n *notice) finish() {
	n.mu.Lock()
	if n.finished {
		n.mu.Unlock()
		return
	}
	n.finished = true
	returned, w := n.returned, n.withdraw
	n.mu.Unlock()
	if returned && w != nil {
		go runWithdraw(w)
	}
}

func runWithdraw(w func(ctx context.Context)) {
	if w == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), ProgressTimeout)
	defer cancel()
	w(ctx)
}
