package mailbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// This file is what the agent is shown of the mailbox: every message the
// channel publishes on the bus (one received, a notice of its own) is
// framed in the bus's words (frame: bus.Kind, bus.Note, the thread), and
// an update or a reply of work this agent sent out is routed to the
// conversation that work began in (routed).

// toInbound converts a mailbox message into the bus's InboundMessage of
// channel "mailbox", chat id = the sender.
func (c *Channel) toInbound(m *envelope.Message, mt meta.Meta) bus.InboundMessage {
	return frame(bus.InboundMessage{
		Channel:     ChannelName,
		SenderID:    m.From,
		ChatID:      m.From,
		Content:     contentOf(m),
		Media:       filePaths(m),
		Timestamp:   m.Timestamp.Time,
		ID:          m.ID,
		Redelivered: mt.Redelivered,
	}, mt)
}

// frame attaches mt to in (meta.With), and says in the bus's own words
// what in asks of the agent (bus.Kind, as meta.Classify decides it), how
// the model is shown it (bus.Note) and its thread: the agent loop reads
// those, never the metadata. Every message the channel publishes is
// framed once its content and its conversation are final (see routed).
// An update of work under way (pending, accepted, working) routed to the
// conversation the work began in is a bus.KindNotice: the loop tells it
// as it is, without a model turn; the result (a terminal update) is a
// chat message the model answers.
func frame(in bus.InboundMessage, mt meta.Meta) bus.InboundMessage {
	in.Metadata = meta.With(nil, mt)
	in.Kind = kinds[mt.Kind()]
	if in.Kind == bus.KindChat && mt.Type == envelope.TypeTaskUpdate && mt.Task != nil &&
		mt.Task.State != "" && !mt.Task.State.Terminal() {
		in.Kind = bus.KindNotice
	}
	in.Note = noteOf(in, &mt)
	in.Thread = mt.ThreadID
	return in
}

// kinds are the bus's kinds of meta's.
var kinds = map[meta.Kind]bus.Kind{meta.KindChat: bus.KindChat, meta.KindTask: bus.KindTask,
	meta.KindMessage: bus.KindMessage, meta.KindRecordOnly: bus.KindRecord}

// noteOf is how the model is shown the mailbox message in: its type, its
// sender, the task it is about and its text.
func noteOf(in bus.InboundMessage, mt *meta.Meta) *bus.Note {
	n := &bus.Note{Type: string(mt.Type), From: mt.From, Text: textOf(in, mt), TaskID: mt.TaskOf(), Unverified: mt.Unverified}
	if n.From == "" {
		n.From = in.SenderID
	}
	if mt.Type == envelope.TypeTaskUpdate {
		n.TaskID = ""
		if mt.Task != nil {
			n.TaskID, n.State, n.Reason = mt.Task.ID, string(mt.Task.State), mt.Task.Reason
		}
	}
	return n
}

// textOf is the text of a mailbox message: its parts (data as JSON, files
// as "file: <path>"), or the inbound content when there are none.
func textOf(in bus.InboundMessage, mt *meta.Meta) string {
	if len(mt.Parts) == 0 {
		if mt.Type == envelope.TypeTaskUpdate {
			return "" // the channel's content only restates the header
		}
		return in.Content
	}
	var lines []string
	for _, p := range mt.Parts {
		switch p.Type {
		case envelope.PartText:
			if p.Text != "" {
				lines = append(lines, p.Text)
			}
		case envelope.PartData:
			if data, err := json.Marshal(p.Data); err == nil {
				lines = append(lines, "data: "+string(data))
			}
		case envelope.PartFile:
			lines = append(lines, fileLine(p))
		}
	}
	return strings.Join(lines, "\n")
}

// contentOf is the text the agent reads: the text parts, or for a
// task_update without text a sentence saying what happened.
func contentOf(m *envelope.Message) string {
	text := m.Text()
	if m.Type != envelope.TypeTaskUpdate || m.Task == nil {
		return text
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[task %s %s by %s", m.Task.ID, m.Task.State, m.From)
	if m.Task.Reason != "" {
		fmt.Fprintf(&b, ": %s", m.Task.Reason)
	}
	b.WriteString("]")
	if text != "" {
		b.WriteString("\n")
		b.WriteString(text)
	}
	return b.String()
}

// filePaths are the paths of the file parts: nanobot's, and those of
// artifacts whose path names a file here (their sender is on this
// machine); an artifact from another machine has its text line, and
// read_artifact fetches it.
func filePaths(m *envelope.Message) []string {
	var out []string
	for _, p := range m.Content.Parts {
		if p.Type == envelope.PartFile && p.Path != "" && (!p.IsArtifact() || isLocalFile(p.Path)) {
			out = append(out, p.Path)
		}
	}
	return out
}

// routed returns in addressed to the conversation cb names (the one a
// task or request began in), or in unchanged without one. The record of
// what this agent sent is the only source of cb: a callback written in an
// incoming message is never trusted.
func routed(in bus.InboundMessage, mt meta.Meta, cb *envelope.Callback) bus.InboundMessage {
	if cb == nil || cb.Channel == "" {
		return in
	}
	c := *cb
	mt.Callback = &c
	in.Channel, in.ChatID, in.SessionKeyOverride = c.Channel, chatIDOf(c), c.SessionID
	return frame(in, mt)
}

// chatIDOf returns the callback's chat id, or the part of nanobot's
// "channel:chat" session id after the channel when only that is given.
func chatIDOf(cb envelope.Callback) string {
	if cb.ChatID != "" {
		return cb.ChatID
	}
	if rest, ok := strings.CutPrefix(cb.SessionID, cb.Channel+":"); ok {
		return rest
	}
	return cb.SessionID
}

// notify tells the agent what the channel itself noticed about the task
// of agent mt.From (mt.Task: its state, and the reason): in the
// conversation cb names when there is one, with text as the note's text.
func (c *Channel) notify(ctx context.Context, mt meta.Meta, cb *envelope.Callback, text string) {
	in := frame(bus.InboundMessage{Channel: ChannelName, SenderID: mt.From, ChatID: mt.From,
		Content: text, Timestamp: c.clk.Now()}, mt)
	in = routed(in, mt, cb)
	if in.Note != nil && in.Note.Text == "" {
		in.Note.Text = text // the channel's own words: the message has no parts
	}
	if err := c.publish(ctx, in); err != nil && ctx.Err() == nil {
		c.Logger().Error("notice not published", "id", mt.ReplyTo, "err", err)
	}
}

// isLocalFile reports whether path names a regular file on this machine.
func isLocalFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
