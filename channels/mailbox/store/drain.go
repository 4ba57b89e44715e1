package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// DrainKey is the key of the state record on an agent's shelf that asks
// the agent to drain (on the folder store <agent>/state/drain.json).
const DrainKey = "drain"

// DrainRequest asks a running agent to drain: take no new task, finish
// those it has, then go offline (see the mailbox channel's drain.go).
// The agent looks for it at every heartbeat, or, on a store that can
// nudge it (CanNudge), when nudged and now and then; it heeds only a
// request made while it runs: one older than its start was meant for a
// run that ended.
type DrainRequest struct {
	// At is when it was asked.
	At time.Time `json:"requested_at"`
	// By is who asked ("operator" for the command line and the console).
	By string `json:"by"`
}

// RequestDrain records a drain request for agent and, on a store that can
// (CanNudge), nudges the agent. A nudge that could not be sent is not an
// error: the request is recorded, and the agent finds it when it reads
// the record again (see WatchDrainRequests).
func (s *Store) RequestDrain(ctx context.Context, agent string, r DrainRequest) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := s.SaveState(ctx, agent, DrainKey, data); err != nil {
		return fmt.Errorf("ask %s to drain: %w", agent, err)
	}
	if n, ok := s.be.(driver.Nudger); ok {
		if err := n.Nudge(ctx, agent, DrainKey); err != nil {
			s.log.Warn("drain request recorded; the agent was not nudged and finds it when it next reads it", "agent", agent, "err", err)
		}
	}
	return nil
}

// WatchDrainRequests calls fn, one call at a time, whenever a drain
// request may have been recorded for agent (RequestDrain nudged it, or
// the store may have missed a nudge while its connection was down),
// until stop is called. fn reads the request with DrainRequested; it may
// find none, or an old one. On a store that cannot nudge (without
// CanNudge: the folder store) it fails with ErrNotSupported, and so it
// does when the store may not listen (credentials): the caller reads the
// request at every heartbeat instead. Requests recorded by a program
// that does not nudge (an older switchboard) are found only by reading.
func (s *Store) WatchDrainRequests(ctx context.Context, agent string, fn func()) (stop func(), err error) {
	n, ok := s.be.(driver.Nudger)
	if !ok {
		return nil, notSupported(CanNudge)
	}
	stop, err = n.ListenNudges(ctx, agent, DrainKey, fn)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSupported, err)
	}
	return stop, nil
}

// DrainRequested returns the last drain request recorded for agent, and
// false when there is none.
func (s *Store) DrainRequested(ctx context.Context, agent string) (DrainRequest, bool, error) {
	var r DrainRequest
	data, err := s.LoadState(ctx, agent, DrainKey)
	if err != nil || len(data) == 0 {
		return r, false, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, false, fmt.Errorf("drain request of %s: %w: %w", agent, ErrCorruptState, err)
	}
	return r, !r.At.IsZero(), nil
}
