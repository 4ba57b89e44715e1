package metrics

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// browseEvery is how long the inbox figures of a store that can only
// count its messages by browsing them all (NATS: its history) are reused
// before they are read again.
const browseEvery = 30 * time.Second

// Inbox is what waits in one agent's inbox (see store.Store.Backlog).
type Inbox = store.Backlog

// inboxReader reads an inbox for the scrape, reusing what it read from a
// store that browses for browseEvery.
type inboxReader struct {
	be    *store.Store
	agent string
	now   func() time.Time

	mu      sync.Mutex
	last    Inbox
	lastOK  bool
	readAt  time.Time
	browses bool
}

func newInboxReader(be *store.Store, agent string, now func() time.Time) *inboxReader {
	counts := be.Has(store.CanCount) && be.Has(store.CanListPending)
	return &inboxReader{be: be, agent: agent, now: now, browses: !counts}
}

func (r *inboxReader) read(ctx context.Context) (Inbox, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.browses && !r.readAt.IsZero() && r.now().Sub(r.readAt) < browseEvery {
		return r.last, r.lastOK, nil
	}
	in, err := r.be.Backlog(ctx, r.agent)
	ok := !errors.Is(err, store.ErrNotSupported)
	if !ok {
		return in, false, nil
	}
	if err != nil {
		return in, ok, err
	}
	r.last, r.lastOK, r.readAt = in, ok, r.now()
	return in, ok, nil
}
