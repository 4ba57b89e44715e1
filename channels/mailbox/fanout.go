package mailbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// PostTo sends req (whose To is ignored) to every agent target names
// (see route.ParseTarget and route.Resolve): all, a capability or role (every holder,
// or with any: the least loaded online one), a pattern, or one agent.
// Each recipient gets its own copy under the loop rules of Post; a
// recipient they refuse is skipped and reported, and PostTo fails only
// when nobody could be sent to. A task with a fixed TaskID can go to one
// agent only.
func (c *Channel) PostTo(ctx context.Context, target string, req route.Request) (route.Fanout, error) {
	t, err := route.ParseTarget(target)
	if err != nil {
		return route.Fanout{}, err
	}
	be := c.Backend()
	if be == nil {
		return route.Fanout{}, ErrNotRunning
	}
	opts := route.ResolveOptions{Now: c.clk.Now(), OfflineAfter: seconds(c.cfg.OfflineAfter), MaxFanout: c.cfg.MaxFanout}
	if be.Has(store.CanFindInbox) { // a bare name with an inbox is that agent, as on the command line
		opts.HasInbox = func(agent string) bool { ok, _ := be.HasInbox(agent); return ok }
	}
	to, err := route.Resolve(ctx, be, c.cfg.AgentID, t, opts)
	if err != nil {
		return route.Fanout{}, err
	}
	if len(to) > 1 && req.Type == envelope.TypeTask && req.TaskID != "" {
		return route.Fanout{}, fmt.Errorf("send task %s to %s: a task id names one task, for one agent; leave it out so that each of the %d agents gets its own",
			req.TaskID, t, len(to))
	}
	if req.Type == envelope.TypeTask && req.Via == "" && (t.Kind == route.TargetAny || t.Kind == route.TargetCap && len(to) == 1) {
		req.Via = t.String() // one worker picked from a group: another may take over (lost.go)
	}
	// The first copy names the thread the others share; then the rest go
	// out together, FanoutParallel at a time.
	var out route.Fanout
	first := 0
	for ; first < len(to) && len(out.Sent) == 0; first++ {
		if err := c.postOne(ctx, req, to[first], "", &out); err != nil {
			return out, err
		}
	}
	rest := to[first:]
	thread := req.ThreadID
	if thread == "" && len(out.Sent) > 0 {
		thread = out.Sent[0].ThreadID
	}
	results := make([]route.Fanout, len(rest))
	errs := route.Each(ctx, len(rest), route.FanoutParallel, func(ctx context.Context, i int) error {
		return c.postOne(ctx, req, rest[i], thread, &results[i])
	})
	for i, r := range results { // in recipient order
		out.Sent, out.Skipped = append(out.Sent, r.Sent...), append(out.Skipped, r.Skipped...)
		if errs[i] != nil {
			return out, errs[i]
		}
	}
	if len(out.Sent) == 0 {
		return out, fmt.Errorf("send to %s: every recipient refused: %w", t, out.Skipped[0].Err)
	}
	return out, nil
}

// postOne posts req to rcpt in thread (req's own when empty) and adds the
// outcome to out: sent, or skipped by the loop rules, a rate limit or an
// open circuit breaker. Any other failure
// is returned.
func (c *Channel) postOne(ctx context.Context, req route.Request, rcpt, thread string, out *route.Fanout) error {
	r := req
	r.To = rcpt
	if r.ThreadID == "" {
		r.ThreadID = thread
	}
	msg, err := c.Post(ctx, r)
	switch {
	case err == nil:
		out.Sent = append(out.Sent, msg)
	case errors.Is(err, route.ErrLoop) || errors.Is(err, route.ErrTTLExhausted) ||
		errors.Is(err, route.ErrRateLimited) || errors.Is(err, route.ErrBreakerOpen):
		out.Skipped = append(out.Skipped, route.Skipped{To: rcpt, Err: err})
	default:
		return err
	}
	return nil
}
