package server

import (
	"context"
	"errors"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/agent"
)

// watchApprovals looks at the approval book at every tick while tasks
// are open: an approval the worker of an open task waits for makes the
// task input-required, and its decision (by an operator, the timeout, or
// the client) makes it working again. Approvals are decided in other
// processes, which tell nobody: the book is what there is to look at, as
// the waiting agent itself does.
func (s *Server) watchApprovals(ctx context.Context) {
	t := s.clk.NewTicker(s.cfg.ApprovalPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			s.checkApprovals(ctx)
		}
	}
}

// checkApprovals is one look of watchApprovals.
func (s *Server) checkApprovals(ctx context.Context) {
	var open []record
	for _, r := range s.tasks.open() {
		if r.Mailbox.MessageID != "" {
			open = append(open, r)
		}
	}
	if len(open) == 0 {
		return
	}
	list, err := s.book.ListApprovals(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("approvals not read", "err", err)
		}
		return
	}
	undecided := map[string]agent.Approval{}
	for _, a := range list {
		if a.Decision == nil && a.TaskID != "" {
			undecided[a.TaskID] = a
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range open {
		id, w := r.Task.ID, r.Mailbox.Waiting
		a, waits := undecided[r.Mailbox.TaskID]
		switch {
		case waits && (w == nil || w.ID != a.ID) && s.announced[id] != a.ID:
			s.announced[id] = a.ID
			s.feeds.push(id, update{kind: kindApproval, id: a.ID, from: a.Agent, approval: &a})
		case !waits && w != nil && w.Kind == waitApproval && s.announced[id] != "done:"+w.ID:
			s.announced[id] = "done:" + w.ID
			u := update{kind: kindDecided, id: w.ID, from: w.From}
			if got, err := s.book.GetApproval(ctx, w.ID); err == nil {
				u.approval = &got
			}
			s.feeds.push(id, u)
		}
	}
}

// decide answers the approval task r waits for with the client's text:
// "approve" (yes, ok) or "deny" (no), with an optional reason after it.
// Unless channels.a2a.clientApproves is on, only an operator decides, and
// the client is told so.
func (s *Server) decide(ctx context.Context, ec *a2asrv.ExecutorContext, r record, text string) (a2a.Event, bool) {
	w := r.Mailbox.Waiting
	again := func(msg string) (a2a.Event, bool) {
		return a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, convert.AgentMessage(ec, msg)), true
	}
	if !s.cfg.ClientApproves {
		return again("this task waits for an operator's approval (approval " + w.ID + "); an A2A client cannot give it")
	}
	allow, reason, ok := parseDecision(text)
	if !ok {
		return again(`answer "approve" or "deny" (approval ` + w.ID + ")")
	}
	by := "a2a client"
	if ec.User != nil && ec.User.Name != "" {
		by += " " + ec.User.Name
	}
	got, err := s.book.DecideApproval(ctx, w.ID, agent.Decision{Allow: allow, By: by, Reason: reason, Time: s.clk.Now()})
	switch {
	case err == nil, errors.Is(err, agent.ErrDecided):
	case errors.Is(err, agent.ErrNoApproval):
		got = agent.Approval{ID: w.ID}
	default:
		return again("the decision was not recorded: " + err.Error())
	}
	s.mu.Lock()
	s.announced[ec.TaskID] = "done:" + w.ID
	s.mu.Unlock()
	s.setWaiting(ctx, ec.TaskID, nil)
	return a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking,
		convert.AgentMessage(ec, decidedText(update{id: w.ID, approval: &got}))), false
}

// parseDecision reads "approve", "yes", "ok" or "deny", "no" at the start
// of text, any case; what follows is the reason.
func parseDecision(text string) (allow bool, reason string, ok bool) {
	word, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	switch strings.ToLower(strings.Trim(word, ".,!:;")) {
	case "approve", "approved", "yes", "ok":
		return true, strings.TrimSpace(rest), true
	case "deny", "denied", "no":
		return false, strings.TrimSpace(rest), true
	}
	return false, "", false
}
