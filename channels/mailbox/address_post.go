package mailbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Skipped is a recipient of a fan-out that was not sent to, and why.
type Skipped struct {
	To  string
	Err error
}

// Fanout is the result of PostTo.
type Fanout struct {
	// Sent are the messages sent, one per recipient, in recipient order;
	// they share one thread (the first one's id).
	Sent []*envelope.Message
	// Skipped are the recipients the loop rules refused (already in the
	// trace, or no hops left).
	Skipped []Skipped
}

// inboxFinder is a store that can tell whether an agent has an inbox,
// registered or not (the filesystem store can).
type inboxFinder interface {
	HasInbox(agent string) (string, bool, error)
}

// PostTo sends req (whose To is ignored) to every agent target names
// (see ParseTarget and Resolve): all, a capability or role (every holder,
// or with any: the least loaded online one), a pattern, or one agent.
// Each recipient gets its own copy under the loop rules of Post; a
// recipient they refuse is skipped and reported, and PostTo fails only
// when nobody could be sent to. A task with a fixed TaskID can go to one
// agent only.
func (c *Channel) PostTo(ctx context.Context, target string, req Request) (Fanout, error) {
	t, err := ParseTarget(target)
	if err != nil {
		return Fanout{}, err
	}
	be := c.Backend()
	if be == nil {
		return Fanout{}, ErrNotRunning
	}
	opts := ResolveOptions{Now: c.now(), OfflineAfter: seconds(c.cfg.OfflineAfter), MaxFanout: c.cfg.MaxFanout}
	if s, ok := be.(inboxFinder); ok { // a bare name with an inbox is that agent, as on the command line
		opts.HasInbox = func(agent string) bool { _, ok, _ := s.HasInbox(agent); return ok }
	}
	to, err := Resolve(ctx, be, c.cfg.AgentID, t, opts)
	if err != nil {
		return Fanout{}, err
	}
	if len(to) > 1 && req.Type == envelope.TypeTask && req.TaskID != "" {
		return Fanout{}, fmt.Errorf("send task %s to %s: a task id names one task, for one agent; leave it out so that each of the %d agents gets its own",
			req.TaskID, t, len(to))
	}
	var out Fanout
	for _, rcpt := range to {
		r := req
		r.To = rcpt
		if len(out.Sent) > 0 && r.ThreadID == "" {
			r.ThreadID = out.Sent[0].ThreadID
		}
		msg, err := c.Post(ctx, r)
		switch {
		case err == nil:
			out.Sent = append(out.Sent, msg)
		case errors.Is(err, ErrLoop) || errors.Is(err, ErrTTLExhausted):
			out.Skipped = append(out.Skipped, Skipped{To: rcpt, Err: err})
		default:
			return out, err
		}
	}
	if len(out.Sent) == 0 {
		return out, fmt.Errorf("send to %s: every recipient refused: %w", t, out.Skipped[0].Err)
	}
	return out, nil
}
