package stalemate

import (
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Reason begins the reason of a task failed to end a stalemate
// ("stalemate: lead and coder ..."): the delegator's update says it, and
// the escalation triggers recognise it.
const Reason = "stalemate"

// Rounds is how many rounds (a request and the request that answers it,
// from each side) an exchange may go without the replies owed shrinking
// (seed 000: two).
const Rounds = 2

// DefaultBounces is the default of channels.mailbox.limits.bounces.
const DefaultBounces = 4

// Next returns the counts of a reply that answers orig: origCounts are
// orig's, origRequest says whether orig is owed a reply by this one (it
// expects one and is not a task: a task is answered by its task_update,
// not by a message), and request whether the reply asks for one in
// turn.
func Next(origCounts envelope.Exchange, origRequest, request bool) envelope.Exchange {
	var e envelope.Exchange
	if !origRequest || request { // no reply owed settled
		e.Bounces = origCounts.Bounces + 1
	}
	if request {
		e.AskedBack = origCounts.AskedBack + 1
	}
	return e
}

// Answers reports whether a reply settles what orig is owed: orig
// expects a reply and is not a task (whose answer is its task_update).
func Answers(origExpectsReply bool, origType envelope.Type) bool {
	return origExpectsReply && origType != envelope.TypeTask
}

// Rule names which rule found a stalemate.
type Rule string

// The rules.
const (
	// RuleOwed: the replies owed did not shrink across Rounds rounds.
	RuleOwed Rule = "owed"
	// RuleBounces: the chain bounced channels.mailbox.limits.bounces
	// times without settling a reply owed.
	RuleBounces Rule = "bounces"
)

// Stuck is a stalemate found on a message: the reply that would carry
// the exchange on.
type Stuck struct {
	Rule Rule
	// From sent the reply, To would have received it.
	From, To string
	// MessageID, ThreadID and TaskID name the reply, its thread and its
	// task ("" for none).
	MessageID, ThreadID, TaskID string
	// Count is the count that reached Limit.
	Count, Limit int
}

// Check reports whether m, whose counts are e (m.Exchange(), or what
// its receiver counted from its own message that m answers), carries a stalemate on: a reply (a
// message with reply_to; a task or task_update never is) whose chain
// went 2*Rounds replies asking back, or bounces replies without settling
// a reply owed. bounces 0 or less turns both rules off.
func Check(m *envelope.Message, e envelope.Exchange, bounces int) (Stuck, bool) {
	if bounces <= 0 || m.Type != envelope.TypeMessage || m.ReplyTo == "" {
		return Stuck{}, false
	}
	s := Stuck{From: m.From, To: m.To, MessageID: m.ID, ThreadID: m.ThreadID, TaskID: m.TaskOf()}
	switch {
	case e.AskedBack >= 2*Rounds:
		s.Rule, s.Count, s.Limit = RuleOwed, e.AskedBack, 2*Rounds
	case e.Bounces >= bounces:
		s.Rule, s.Count, s.Limit = RuleBounces, e.Bounces, bounces
	default:
		return Stuck{}, false
	}
	return s, true
}

// String is the reason a task fails with, in plain words: "stalemate:
// coder and lead answered each other's requests with new requests 4
// times in a row (two rounds) on task t1: the replies owed did not
// shrink; the 4th, coder's reply m1 to lead, was set aside".
func (s Stuck) String() string {
	where := "in thread " + s.ThreadID
	if s.TaskID != "" {
		where = "on task " + s.TaskID
	}
	last := fmt.Sprintf("the %s, %s's reply %s to %s, was set aside", ordinal(s.Count), s.From, s.MessageID, s.To)
	if s.Rule == RuleOwed {
		return fmt.Sprintf("%s: %s and %s answered each other's requests with new requests %d times in a row (%d rounds) %s: the replies owed did not shrink; %s",
			Reason, s.To, s.From, s.Count, s.Count/2, where, last)
	}
	return fmt.Sprintf("%s: %s and %s bounced replies back and forth %d times %s without settling a reply owed (channels.mailbox.limits.bounces: %d); %s",
		Reason, s.To, s.From, s.Count, where, s.Limit, last)
}

// ordinal writes n as "1st", "2nd", "3rd", "4th", ...
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
