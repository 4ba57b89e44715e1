package console

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// Limits of what the state carries.
const (
	maxThreads = 300
	maxText    = 4000
)

// MessageRow is one message of a thread.
type MessageRow struct {
	ID           string             `json:"id"`
	From         string             `json:"from"`
	To           string             `json:"to"`
	Time         time.Time          `json:"time"`
	Type         envelope.Type      `json:"type"`
	Text         string             `json:"text"`
	Subject      string             `json:"subject,omitempty"`
	TaskID       string             `json:"task_id,omitempty"`
	TaskState    envelope.TaskState `json:"task_state,omitempty"`
	Reason       string             `json:"reason,omitempty"`
	ReplyTo      string             `json:"reply_to,omitempty"`
	ExpectsReply bool               `json:"expects_reply,omitempty"`
	// Owed is set on a request still waiting for its reply; Overdue when
	// its due time passed.
	Owed    bool      `json:"owed,omitempty"`
	Overdue bool      `json:"overdue,omitempty"`
	Box     store.Box `json:"box"`
	Depth   int       `json:"depth"`
}

// ThreadRow is one conversation.
type ThreadRow struct {
	ID           string       `json:"id"`
	Subject      string       `json:"subject,omitempty"`
	Participants []string     `json:"participants"`
	Tasks        []string     `json:"tasks"`
	Last         time.Time    `json:"last"`
	Owed         int          `json:"owed"`
	Messages     []MessageRow `json:"messages"`
}

// threads groups the messages into conversations (shared thread id or a
// reply_to link), each in causal order, the most recently active first.
func threads(all []store.Stored, pending []view.StoredPending) []ThreadRow {
	owed := map[string]view.StoredPending{}
	for _, p := range pending {
		owed[p.MessageID] = p
	}
	parent := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		if p, ok := parent[k]; ok && p != k {
			r := find(p)
			parent[k] = r
			return r
		}
		return k
	}
	union := func(a, b string) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[ra] = rb
		}
	}
	key := func(m *envelope.Message) string { return cmp.Or(m.ThreadID, m.ID) }
	byID := map[string]*envelope.Message{}
	for _, s := range all {
		byID[s.Message.ID] = s.Message
		union(s.Message.ID, key(s.Message))
	}
	for _, s := range all {
		if orig, ok := byID[s.Message.ReplyTo]; ok {
			union(key(s.Message), key(orig))
		}
	}
	groups := map[string][]store.Stored{}
	for _, s := range all {
		r := find(key(s.Message))
		groups[r] = append(groups[r], s)
	}
	// Only the maxThreads most recently active are shown: the rows of
	// those alone are made.
	type group struct {
		id   string
		last time.Time
		msgs []store.Stored
	}
	sorted := make([]group, 0, len(groups))
	for _, g := range groups {
		slices.SortStableFunc(g, view.CompareStored)
		last := g[0].Message.Timestamp.Time
		for _, s := range g[1:] {
			if s.Message.Timestamp.After(last) {
				last = s.Message.Timestamp.Time
			}
		}
		sorted = append(sorted, group{id: cmp.Or(g[0].Message.ThreadID, g[0].Message.ID), last: last, msgs: g})
	}
	slices.SortFunc(sorted, func(a, b group) int {
		return cmp.Or(b.last.Compare(a.last), cmp.Compare(a.id, b.id))
	})
	out := make([]ThreadRow, 0, min(len(sorted), maxThreads))
	for _, g := range sorted[:min(len(sorted), maxThreads)] {
		chain := view.ThreadOf(g.msgs, g.msgs[0].Message.ID)
		t := ThreadRow{ID: g.id, Participants: []string{}, Tasks: []string{}}
		for _, e := range chain {
			m := e.Message
			row := messageRow(e.Stored, e.Depth)
			if p, ok := owed[m.ID]; ok {
				row.Owed, row.Overdue = true, p.Overdue
				t.Owed++
			}
			t.Messages = append(t.Messages, row)
			t.Subject = cmp.Or(t.Subject, m.Subject)
			addOnce(&t.Participants, m.From)
			addOnce(&t.Participants, m.To)
			if id := m.TaskOf(); id != "" {
				addOnce(&t.Tasks, id)
			}
			if m.Timestamp.After(t.Last) {
				t.Last = m.Timestamp.Time
			}
		}
		out = append(out, t)
	}
	return out
}

// messageRow is the row of one stored message.
func messageRow(s store.Stored, depth int) MessageRow {
	m := s.Message
	r := MessageRow{ID: m.ID, From: m.From, To: m.To, Time: m.Timestamp.Time, Type: m.Type, Text: text(m),
		Subject: m.Subject, TaskID: m.TaskOf(), ReplyTo: m.ReplyTo, ExpectsReply: m.ExpectsReply,
		Box: s.Box, Depth: depth}
	if m.Task != nil {
		r.TaskState, r.Reason = m.Task.State, m.Task.Reason
	}
	return r
}

// text is what the page shows of a message: its text parts, else its
// parts as JSON, clipped.
func text(m *envelope.Message) string {
	s := m.Text()
	if s == "" && len(m.Content.Parts) > 0 {
		data, _ := json.Marshal(m.Content.Parts)
		s = string(data)
	}
	if len(s) > maxText {
		s = s[:maxText] + "…"
	}
	return s
}

func addOnce(list *[]string, s string) {
	if s != "" && !slices.Contains(*list, s) {
		*list = append(*list, s)
	}
}
