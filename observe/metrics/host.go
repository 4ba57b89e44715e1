package metrics

import (
	"context"
	"errors"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/host"
)

// errNotRunning is the readiness of a host that has not started, or
// stopped.
var errNotRunning = errors.New("the host's channels and agent loop are not running")

// Watch connects m to h, which must have been built with m.Hook() among
// its hooks (host.Options.Hooks) and not started yet: the agent label
// becomes h's mailbox agent, m counts the mailbox's messages and reads
// the inbox, the tasks and the bus at scrape time. It returns the checks
// of /healthz (the loop is not wedged) and of /readyz (the host runs, its
// store can be reached).
func (m *Metrics) Watch(h *host.Host) (live, ready []Check) {
	src := Sources{Queues: func() (int, int) { return h.Bus().InboundDepth(), h.Bus().OutboundDepth() }}
	ready = []Check{{Name: "host", Fn: func(context.Context) error {
		if !h.Running() {
			return errNotRunning
		}
		return nil
	}}}
	if mb := mailboxOf(h); mb != nil {
		m.agent = mb.AgentID()
		mb.SetMeter(m.Meter())
		var (
			mu     sync.Mutex
			reader *inboxReader
		)
		src.Inbox = func(ctx context.Context) (Inbox, bool, error) {
			be := mb.Backend()
			if be == nil {
				return Inbox{}, false, nil // not started, or stopped
			}
			mu.Lock()
			if reader == nil || reader.be != be {
				reader = newInboxReader(be, m.agent, m.now)
			}
			r := reader
			mu.Unlock()
			return r.read(ctx)
		}
		src.Tasks = mb.Tasks
		ready = append(ready, Check{Name: "store", Fn: func(ctx context.Context) error {
			return reachable(ctx, mb.Backend())
		}})
	}
	m.Collect(src)
	guards := Guards{Approvals: h.Loop().ApprovalStats}
	if mb := mailboxOf(h); mb != nil {
		guards.Limits = mb.LimitStats
		guards.OpenBreakers = func() int { return len(mb.OpenBreakers()) }
		guards.Budget = mb.BudgetStats
	}
	m.CollectGuards(guards)
	live = []Check{{Name: "loop", Fn: func(context.Context) error { return m.Wedged() }}}
	return live, ready
}

// mailboxOf returns h's mailbox channel, or nil when channels.mailbox is
// not enabled.
func mailboxOf(h *host.Host) *mailbox.Channel {
	ch, ok := h.Channel(mailbox.ChannelName)
	if !ok {
		return nil
	}
	mb, _ := ch.(*mailbox.Channel)
	return mb
}

// reachable checks that be answers (store.Store.Ping: the backend's own
// check, else a read of the cards).
func reachable(ctx context.Context, be *store.Store) error {
	if be == nil {
		return errors.New("the mailbox store is not open")
	}
	return be.Ping(ctx)
}
