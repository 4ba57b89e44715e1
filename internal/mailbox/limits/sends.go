package limits

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// SendsKey is the StateStore key under which a sender's buckets are kept
// between processes (Sends): each `switchboard send` is a process of its
// own, and buckets in memory would start full every time.
const SendsKey = "send-limits"

// sendsRecord is the saved form of one sender's buckets: for each, the
// time at which it is full again (the "theoretical arrival time" of the
// generic cell rate algorithm, which is a token bucket kept as one time).
type sendsRecord struct {
	Edge  map[string]time.Time `json:"edge,omitempty"`
	Agent time.Time            `json:"agent,omitzero"`
}

// Sends applies perEdge and perAgent to the sends of agent from to each
// of `to` (one entry per message; a reply or a task_update is not
// counted and is left out by the caller), with the buckets kept in st
// under SendsKey, so that they hold across processes. It returns, for
// each entry of `to`, nil or the *route.LimitError that refuses it; the
// allowed ones have taken their tokens, and the record is saved before it
// returns. Two processes that send as the same agent at the same moment
// may both take the last token: the record is read and written, not
// locked.
func Sends(ctx context.Context, cfg Config, st store.StateStore, from string, to []string, now time.Time) ([]error, error) {
	out := make([]error, len(to))
	if cfg.PerEdge.Off() && cfg.PerAgent.Off() || len(to) == 0 {
		return out, nil
	}
	var rec sendsRecord
	data, err := st.LoadState(ctx, from, SendsKey)
	if err != nil {
		return nil, fmt.Errorf("read the send limits of %q: %w", from, err)
	}
	if len(data) > 0 && json.Unmarshal(data, &rec) != nil {
		rec = sendsRecord{} // unreadable: start full, as a new agent does
	}
	if rec.Edge == nil {
		rec.Edge = map[string]time.Time{}
	}
	for i, rcpt := range to {
		edge, wait := take(cfg.PerEdge, rec.Edge[rcpt], now)
		if wait > 0 {
			out[i] = &route.LimitError{Kind: route.ErrRateLimited, From: from, To: rcpt, RetryAfter: wait,
				Rule: fmt.Sprintf("over %s to one agent (channels.mailbox.limits.perEdge)", cfg.PerEdge)}
			continue
		}
		agent, wait := take(cfg.PerAgent, rec.Agent, now)
		if wait > 0 {
			out[i] = &route.LimitError{Kind: route.ErrRateLimited, From: from, To: rcpt, RetryAfter: wait,
				Rule: fmt.Sprintf("over %s in all (channels.mailbox.limits.perAgent)", cfg.PerAgent)}
			continue
		}
		rec.Edge[rcpt], rec.Agent = edge, agent
	}
	for rcpt, full := range rec.Edge {
		if !full.After(now) {
			delete(rec.Edge, rcpt) // full again: the same as no record
		}
	}
	if data, err = json.Marshal(rec); err == nil {
		err = st.SaveState(ctx, from, SendsKey, data)
	}
	if err != nil {
		return nil, fmt.Errorf("save the send limits of %q: %w", from, err)
	}
	return out, nil
}

// take takes one token at now from the bucket r that is full again at
// full: it returns when the bucket is full again after the take, or how
// long until a token is there (and takes nothing).
func take(r Rate, full, now time.Time) (time.Time, time.Duration) {
	if r.Off() {
		return full, 0
	}
	each := time.Duration(float64(time.Second) / float64(r.Limit()))
	start := now
	if full.After(now) {
		start = full
	}
	after := start.Add(each)
	if over := after.Sub(now) - time.Duration(r.Burst)*each; over > 0 {
		return full, over
	}
	return after, 0
}
