package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	feishustub "github.com/switchboard-dev/switchboard/internal/feishustub"
)

// shortEvent is the least of an im.message.receive_v1 event the stub
// takes, for a command line.
func shortEvent(user, chat, text string) string {
	content, _ := json.Marshal(map[string]string{"text": text})
	quoted, _ := json.Marshal(string(content))
	return fmt.Sprintf(`{"schema":"2.0","header":{"event_type":%q},`+
		`"event":{"sender":{"sender_id":{"open_id":%q}},"message":{"chat_id":%q,"message_type":"text","content":%s}}}`,
		feishustub.EventTypeMessage, user, chat, quoted)
}

// demoLine is one step of the conversation, for the transcript.
type demoLine struct {
	at   time.Time
	who  string // "user → researcher"
	via  string // "feishu", or the mailbox message's kind
	text string
	// id and traceparent are a mailbox message's ("" for the chat).
	id, traceparent string
}

// transcript writes the conversation in time order: the user's message,
// the bot's replies in the chat and the messages between the agents.
func transcript(w io.Writer, lines []demoLine) {
	slices.SortStableFunc(lines, func(a, b demoLine) int { return a.at.Compare(b.at) })
	if len(lines) == 0 {
		return
	}
	start := lines[0].at
	whoWidth, viaWidth := 0, 0
	for _, l := range lines {
		whoWidth = max(whoWidth, len([]rune(l.who)))
		viaWidth = max(viaWidth, len([]rune(l.via)))
	}
	for _, l := range lines {
		line := fmt.Sprintf("  %6.3fs  %s  %s  %s", l.at.Sub(start).Seconds(), pad(l.who, whoWidth), pad(l.via, viaWidth), l.text)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

func pad(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-len([]rune(s))))
}

// chatLines turns the chat's replies into transcript lines.
func chatLines(bot, user string, replies []feishustub.Reply) []demoLine {
	out := make([]demoLine, 0, len(replies))
	for _, r := range replies {
		out = append(out, demoLine{at: r.Time, who: bot + " → " + user, via: "feishu", text: r.Content})
	}
	return out
}

// browseLines reads the messages between the agents from the store,
// wherever they are now (inbox, claimed, processed or the archive of an
// ended task), once each.
func browseLines(ctx context.Context, st *store.Store) ([]demoLine, error) {
	seen := map[string]bool{}
	var out []demoLine
	err := st.Browse(ctx, func(s store.Stored) bool {
		if !seen[s.Message.ID] { // met again after a move along inbox, claimed, processed, archive
			seen[s.Message.ID] = true
			out = append(out, demoMessageLine(s.Message))
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	sortLines(out)
	return out, nil
}

// demoMessageLine is the transcript line of a message between the agents.
func demoMessageLine(m *envelope.Message) demoLine {
	via := "mailbox " + string(m.Type)
	text := envelope.OneLine(m.Content.Parts)
	if t := m.Task; t != nil && m.Type == envelope.TypeTaskUpdate {
		via += " " + string(t.State)
		if t.Reason != "" {
			text = strings.TrimSpace("reason: " + t.Reason + " " + text)
		}
	}
	return demoLine{at: m.Timestamp.Time, who: m.From + " → " + m.To, via: via, text: text,
		id: m.ID, traceparent: m.Traceparent}
}
