package console

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// rateWindow is the window over which the graph counts recent messages.
const rateWindow = 5 * time.Minute

// Edge is the traffic from one agent to another.
type Edge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count"`
	// Recent counts the messages of the last five minutes; PerMinute is
	// their rate.
	Recent    int       `json:"recent"`
	PerMinute float64   `json:"per_minute"`
	Last      time.Time `json:"last"`
}

// edges counts the stored messages by sender and recipient.
func edges(all []store.Stored, now time.Time) []Edge {
	type pair struct{ from, to string }
	by := map[pair]*Edge{}
	for _, s := range all {
		m := s.Message
		e := by[pair{m.From, m.To}]
		if e == nil {
			e = &Edge{From: m.From, To: m.To}
			by[pair{m.From, m.To}] = e
		}
		e.Count++
		if now.Sub(m.Timestamp.Time) <= rateWindow {
			e.Recent++
		}
		if m.Timestamp.After(e.Last) {
			e.Last = m.Timestamp.Time
		}
	}
	out := make([]Edge, 0, len(by))
	for _, e := range by {
		e.PerMinute = float64(e.Recent) / rateWindow.Minutes()
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Edge) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	return out
}

// SetAsideRow is one set-aside message (a dead letter).
type SetAsideRow struct {
	Agent   string    `json:"agent"`
	Ref     string    `json:"ref"`
	Reason  string    `json:"reason"`
	Time    time.Time `json:"time"`
	ID      string    `json:"id,omitempty"`
	From    string    `json:"from,omitempty"`
	Type    string    `json:"type,omitempty"`
	Text    string    `json:"text"`
	Error   string    `json:"error,omitempty"`
	CanSend bool      `json:"can_redeliver"`
}

// setAside lists what every agent's inbox set aside, newest first.
func (c *Console) setAside(ctx context.Context, st *State) []SetAsideRow {
	if !c.cfg.Store.Has(store.CanDeadLetters) {
		st.Missing = append(st.Missing, "set-aside messages")
		return []SetAsideRow{}
	}
	out := []SetAsideRow{}
	for _, a := range st.Agents {
		items, err := c.cfg.Store.SetAside(ctx, a.ID)
		if err != nil {
			c.cfg.Logger.Warn("list set-aside messages", "agent", a.ID, "err", err)
			continue
		}
		for _, it := range items {
			r := SetAsideRow{Agent: it.Agent, Ref: it.Ref, Reason: it.Reason, Time: it.Time}
			if it.Message != nil {
				r.ID, r.From, r.Type, r.Text, r.CanSend = it.Message.ID, it.Message.From, string(it.Message.Type), text(it.Message), true
			} else {
				r.Text = clip(string(it.Raw))
				if it.Err != nil {
					r.Error = it.Err.Error()
				}
			}
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b SetAsideRow) int { return b.Time.Compare(a.Time) })
	return out
}

// PendingRow is a request still owed a reply.
type PendingRow struct {
	ID      string        `json:"id"`
	From    string        `json:"from"`
	To      string        `json:"to"`
	Type    envelope.Type `json:"type"`
	Thread  string        `json:"thread"`
	TaskID  string        `json:"task_id,omitempty"`
	Subject string        `json:"subject,omitempty"`
	SentAt  time.Time     `json:"sent_at"`
	Due     *time.Time    `json:"due,omitempty"`
	Overdue bool          `json:"overdue"`
	Box     store.Box     `json:"box"`
}

func pendingRows(ps []view.StoredPending) []PendingRow {
	out := make([]PendingRow, 0, len(ps))
	for _, p := range ps {
		r := PendingRow{ID: p.MessageID, From: p.From, To: p.To, Type: p.Type, Thread: cmp.Or(p.ThreadID, p.MessageID),
			TaskID: p.TaskID, Subject: p.Subject, SentAt: p.SentAt.Time, Overdue: p.Overdue, Box: p.Where.Box}
		if p.Due != nil {
			d := p.Due.Time
			r.Due = &d
		}
		out = append(out, r)
	}
	return out
}

func clip(s string) string {
	if len(s) > maxText {
		return s[:maxText] + "…"
	}
	return s
}
