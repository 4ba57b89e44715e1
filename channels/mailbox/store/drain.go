package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// DrainKey is the key of the state record on an agent's shelf that asks
// the agent to drain (on the folder store <agent>/state/drain.json).
const DrainKey = "drain"

// DrainRequest asks a running agent to drain: take no new task, finish
// those it has, then go offline (see the mailbox channel's drain.go).
// The agent looks for it at every heartbeat, and heeds only a request
// made while it runs: one older than its start was meant for a run that
// ended.
type DrainRequest struct {
	// At is when it was asked.
	At time.Time `json:"requested_at"`
	// By is who asked ("operator" for the command line and the console).
	By string `json:"by"`
}

// RequestDrain records a drain request for agent.
func (s *Store) RequestDrain(ctx context.Context, agent string, r DrainRequest) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := s.SaveState(ctx, agent, DrainKey, data); err != nil {
		return fmt.Errorf("ask %s to drain: %w", agent, err)
	}
	return nil
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
