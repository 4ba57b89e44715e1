package slack

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// The receive path:
//
//  1. the Socket Mode loop (socket.go) hands each events_api envelope to
//     take, in a goroutine of its own;
//  2. take reads a message or app_mention event (others are acknowledged
//     and ignored) and drops what is not for the agent: the bot's own
//     messages and other bots', edits and deletions, messages the
//     policies refuse (dm.policy, groupPolicy, allowFrom), and what is in
//     hand or answered already (the journal's Seen);
//  3. inbound reads the message: its text, its files downloaded, the
//     thread its answer goes to;
//  4. Base.HandleMessage journals it, hands it to the bus and reacts to
//     it (Working); only then is the envelope acknowledged.
//
// An error on the way leaves the envelope unacknowledged, and Slack
// delivers the event again. A message's id is its channel and timestamp:
// the same for Slack's retries of an event and for the message and
// app_mention events of one message, so that the agent gets it once.

// errNotReceiving answers events that arrive while the channel stops.
var errNotReceiving = errors.New("slack channel not receiving")

// event is what the channel reads of a message or app_mention event.
type event struct {
	kind        slackevents.EventsAPIType // message or app_mention
	id          string                    // the event's id
	user, botID string
	subtype     string
	text        string
	ts          string
	threadTS    string
	channel     string
	channelType string // im, channel, group, mpim
	clientMsgID string
	files       []slack.File
}

// readEvent returns the message of an Events API event, ok false for an
// event of another kind.
func readEvent(ev slackevents.EventsAPIEvent) (e event, ok bool) {
	if cb, isCB := ev.Data.(*slackevents.EventsAPICallbackEvent); isCB {
		e.id = cb.EventID
	}
	switch in := ev.InnerEvent.Data.(type) {
	case *slackevents.MessageEvent:
		e.kind, e.user, e.botID, e.subtype, e.text = slackevents.Message, in.User, in.BotID, in.SubType, in.Text
		e.ts, e.threadTS, e.channel, e.channelType, e.clientMsgID = in.TimeStamp, in.ThreadTimeStamp, in.Channel, in.ChannelType, in.ClientMsgID
		if in.Message != nil {
			e.files = in.Message.Files
		}
	case *slackevents.AppMentionEvent:
		e.kind, e.user, e.botID, e.text = slackevents.AppMention, in.User, in.BotID, in.Text
		e.ts, e.threadTS, e.channel, e.files = in.TimeStamp, in.ThreadTimeStamp, in.Channel, in.Files
	default:
		return e, false
	}
	if e.channelType == "" { // app_mention carries none: Slack's channel ids tell
		e.channelType = map[byte]string{'D': slackevents.ChannelTypeIM, 'G': slackevents.ChannelTypeGroup}[firstByte(e.channel)]
		if e.channelType == "" {
			e.channelType = slackevents.ChannelTypeChannel
		}
	}
	return e, true
}

// take takes one Events API event (see the receive path above). A nil
// error acknowledges its envelope.
func (c *Channel) take(ctx context.Context, ev slackevents.EventsAPIEvent) error {
	if !c.receiving.Load() {
		return errNotReceiving
	}
	e, ok := readEvent(ev)
	if !ok || !c.forAgent(e) {
		return nil
	}
	id := e.channel + ":" + e.ts
	unlock, err := c.inFlight.Lock(ctx, id)
	if err != nil {
		return err
	}
	defer unlock()
	if c.Journal().Seen(id) {
		c.Logger().Debug("slack message in hand or answered already; its event is a repeat", "id", id, "event_id", e.id)
		return nil
	}
	if err := c.HandleMessage(ctx, c.inbound(ctx, e, id)); err != nil && !errors.Is(err, channels.ErrNotAllowed) {
		return err
	}
	return nil
}

// forAgent reports whether the message of e is for the agent, logging
// why not when a setting refuses it.
func (c *Channel) forAgent(e event) bool {
	bot := c.botUserID
	switch {
	case e.subtype != "" && e.subtype != "file_share":
		return false // edits, deletions, joins, bot_message, ...
	case e.botID != "" || e.user == "" || e.user == bot:
		return false // the bot's own messages, and other bots'
	case e.channel == "" || e.ts == "":
		c.Logger().Warn("slack message event without channel or ts; ignored", "event_id", e.id)
		return false
	}
	if e.channelType == slackevents.ChannelTypeIM {
		switch {
		case !c.cfg.DM.Enabled:
			c.Logger().Info("slack direct message refused: dm.enabled is false", "sender", e.user)
			return false
		case c.cfg.DM.Policy == DMAllowlist && !contains(c.cfg.DM.AllowFrom, e.user):
			c.Logger().Warn("slack direct message refused: sender not in dm.allowFrom", "sender", e.user,
				"hint", "add the user id to "+keyPath+".dm.allowFrom")
			return false
		}
	} else {
		mentioned := e.kind == slackevents.AppMention || bot != "" && strings.Contains(e.text, "<@"+bot+">")
		switch c.cfg.GroupPolicy {
		case GroupMention:
			if !mentioned {
				return false // not for the bot
			}
		case GroupAllowlist:
			if !contains(c.cfg.GroupAllowFrom, e.channel) {
				c.Logger().Debug("slack channel message refused: channel not in groupAllowFrom", "channel", e.channel)
				return false
			}
			if c.cfg.GroupRequireMention && !mentioned {
				return false
			}
		}
	}
	if !c.IsAllowed(e.user) {
		c.Logger().Warn("slack message refused: sender not in allowFrom", "sender", e.user, "channel", e.channel,
			"hint", "add the user id to "+keyPath+".allowFrom")
		return false
	}
	return true
}

// inbound reads the message of e into a bus message with id: its text
// (the bot's mention taken out, Slack's escapes undone), its files
// (downloaded; a failed download is said in the text), and its chat: the
// channel, and the thread its answer goes to after a colon
// ("C0123:1750000000.000100"). So an answer, and the result of a task
// delegated from the conversation, lands in the thread, and each thread
// is a conversation of its own (session "slack:C0123:1750000000.000100",
// as nanobot names it).
func (c *Channel) inbound(ctx context.Context, e event, id string) bus.InboundMessage {
	text := unescape(c.stripMention(e.text))
	var media []string
	for _, f := range e.files {
		line, path := c.download(ctx, f)
		text = strings.TrimSpace(text + "\n" + line)
		if path != "" {
			media = append(media, path)
		}
	}
	thread := e.threadTS
	if thread == "" && c.cfg.ReplyInThread && e.channelType != slackevents.ChannelTypeIM {
		thread = e.ts
	}
	chat := e.channel
	if thread != "" {
		chat += ":" + thread
	}
	md := map[string]any{"channel": e.channel, "ts": e.ts, "channel_type": e.channelType, "event_id": e.id}
	for k, v := range map[string]string{"thread_ts": thread, "client_msg_id": e.clientMsgID} {
		if v != "" {
			md[k] = v
		}
	}
	return bus.InboundMessage{Channel: ChannelName, SenderID: e.user, ChatID: chat, Content: text, Media: media,
		Timestamp: tsTime(e.ts), ID: id, Metadata: md}
}

// stripMention takes the bot's mentions out of the text.
func (c *Channel) stripMention(text string) string {
	if bot := c.botUserID; bot != "" {
		text = strings.ReplaceAll(text, "<@"+bot+">", "")
	}
	return strings.TrimSpace(text)
}

// unescapes undoes Slack's escaping of &, < and > in a message's text.
var unescapes = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

func unescape(text string) string { return unescapes.Replace(text) }

// tsTime reads a message timestamp ("1750000000.000100"); now when it is
// not one.
func tsTime(ts string) time.Time {
	secs, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || s <= 0 {
		return time.Now().UTC()
	}
	us, _ := strconv.ParseInt((frac + "000000")[:6], 10, 64)
	return time.Unix(s, us*1000).UTC()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s || x == "*" {
			return true
		}
	}
	return false
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}
