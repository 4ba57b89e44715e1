package slack

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/slack-go/slack"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// messageLimit is the longest part of an answer, in characters: Slack
// cuts a message's text at 40,000; nanobot keeps the same margin.
const messageLimit = 39_000

// Send posts an answer to the conversation ChatID names: a channel, a
// direct message or a user id (C..., D..., G..., U...), and after a colon
// the thread to post in ("C0123:1750000000.000100", as the channel names
// the chats of its messages). A chat without a thread is posted in the
// thread of the metadata's message when the metadata's channel is the
// same. The text goes as mrkdwn (see mrkdwn), in parts of at most
// messageLimit characters. Errors are temporary (channels.IsTemporary)
// when a retry may succeed, and carry Slack's wait on a rate limit; the
// parts posted before a failure are not posted again when the Manager
// retries the answer.
//
// The channel does not upload files yet: the files of an answer (Media)
// are named in a last line of its text, and a warning is logged.
func (c *Channel) Send(ctx context.Context, msg bus.OutboundMessage) error {
	channel, thread := target(msg)
	if channel == "" {
		return errors.New("slack channel: outbound message without a chat id")
	}
	content := strings.TrimSpace(msg.Content)
	if len(msg.Media) > 0 {
		c.Logger().Warn("slack channel: sending files is not supported yet; their names are sent instead",
			"chat_id", msg.ChatID, "files", len(msg.Media))
		content = strings.TrimSpace(content + "\n\n" + notAttached(msg.Media))
	}
	if content == "" {
		return nil
	}
	parts := fences(channels.Split(mrkdwn(content), messageLimit))
	key := postedKey(msg)
	for i := c.posted.resume(key); i < len(parts); i++ {
		opts := []slack.MsgOption{slack.MsgOptionText(parts[i], false)}
		if thread != "" {
			opts = append(opts, slack.MsgOptionTS(thread))
		}
		if _, _, err := c.api.PostMessageContext(ctx, channel, opts...); err != nil {
			c.posted.record(key, i)
			err = apiError("chat.postMessage", "botToken", err)
			if len(parts) > 1 {
				err = fmt.Errorf("part %d of %d: %w", i+1, len(parts), err)
			}
			return err
		}
	}
	c.posted.forget(key)
	return nil
}

// target returns the conversation and the thread an answer goes to.
func target(msg bus.OutboundMessage) (channel, thread string) {
	channel, thread, _ = strings.Cut(strings.TrimSpace(msg.ChatID), ":")
	if thread == "" && channel != "" && metaString(msg.Metadata, "channel") == channel {
		thread = metaString(msg.Metadata, "thread_ts")
	}
	return channel, thread
}

// notAttached is the line that names the files of an answer the channel
// cannot send.
func notAttached(media []string) string {
	names := make([]string, len(media))
	for i, m := range media {
		names[i] = filepath.Base(m)
	}
	return "(not attached, this channel cannot send files yet: " + strings.Join(names, ", ") + ")"
}

func metaString(md map[string]any, key string) string {
	s, _ := md[key].(string)
	return s
}
