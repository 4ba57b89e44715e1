package slackfake

import (
	"encoding/json"
	"net/url"
	"strings"
)

// Event is a message event Slack delivers to the bot: a "message" event
// (the message.im and message.channels subscriptions) or an "app_mention".
// Zero fields take the defaults named.
type Event struct {
	// EventID is the event's id (default "Ev" and TS without its dot).
	// Slack repeats it when it delivers the same event again.
	EventID string
	// Type is "message" (default) or "app_mention".
	Type string
	// Channel is the conversation (default "D0DM", a direct message).
	Channel string
	// ChannelType is "im", "channel", "group" or "mpim" (default: from
	// the channel id's first letter; none for an app_mention, as Slack).
	ChannelType string
	User        string // the sender (default "U0USER")
	BotID       string // set for a bot's message
	Subtype     string // "file_share", "bot_message", "message_changed", ...
	Text        string
	TS          string // the message's timestamp (default: a new one)
	ThreadTS    string // the thread the message is in, if any
	ClientMsgID string
	Files       []File // shared with the message
	// RetryAttempt and RetryReason are the envelope's: how many times
	// Slack delivered the event before ("timeout" when the bot did not
	// acknowledge it in time).
	RetryAttempt int
	RetryReason  string
}

// File is a file shared in a message; the bot downloads Data from its
// url_private_download with the bot token.
type File struct {
	ID       string
	Name     string
	Mimetype string
	Data     []byte
}

// defaults returns e with its defaults set.
func (s *Server) defaults(e Event) Event {
	if e.Type == "" {
		e.Type = "message"
	}
	if e.Channel == "" {
		e.Channel = "D0DM"
	}
	if e.ChannelType == "" && e.Type == "message" {
		e.ChannelType = map[byte]string{'D': "im", 'C': "channel", 'G': "group"}[e.Channel[0]]
	}
	if e.User == "" && e.BotID == "" {
		e.User = "U0USER"
	}
	if e.TS == "" {
		e.TS = s.nextTS()
	}
	if e.EventID == "" {
		e.EventID = "Ev" + strings.ReplaceAll(e.TS, ".", "")
	}
	return e
}

// payload returns the Events API callback of e, as the payload of its
// envelope.
func (s *Server) payload(e Event) json.RawMessage {
	inner := map[string]any{"type": e.Type, "text": e.Text, "ts": e.TS, "event_ts": e.TS, "channel": e.Channel}
	for k, v := range map[string]string{"user": e.User, "bot_id": e.BotID, "subtype": e.Subtype, "thread_ts": e.ThreadTS,
		"channel_type": e.ChannelType, "client_msg_id": e.ClientMsgID} {
		if v != "" {
			inner[k] = v
		}
	}
	if len(e.Files) > 0 {
		files := make([]map[string]any, len(e.Files))
		for i, f := range e.Files {
			link := s.URL() + "files-pri/T0TEAM-" + f.ID + "/" + url.PathEscape(f.Name)
			files[i] = map[string]any{"id": f.ID, "name": f.Name, "title": f.Name, "mimetype": f.Mimetype,
				"size": len(f.Data), "url_private": link, "url_private_download": link + "?download=1"}
		}
		inner["files"] = files
	}
	data, err := json.Marshal(map[string]any{
		"token": "verification-token", "team_id": "T0TEAM", "api_app_id": "A0APP", "type": "event_callback",
		"event_id": e.EventID, "event_time": 1750000000, "event": inner,
		"authorizations": []map[string]any{{"team_id": "T0TEAM", "user_id": s.opts.BotUserID, "is_bot": true}},
	})
	if err != nil {
		panic(err) // maps of strings and numbers always encode
	}
	return data
}
