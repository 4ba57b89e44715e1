package slack

import (
	"context"
	"errors"

	"github.com/slack-go/slack"

	"github.com/switchboard-dev/switchboard/bus"
)

// Working implements channels.Progress: it reacts to the message with
// reactEmoji while the agent works on it, as nanobot does, and once the
// message is answered removes the reaction and adds doneEmoji (when
// set). A reaction that fails is logged at debug: it is a courtesy. A
// message handed over again after a restart has its reaction already;
// Slack's already_reacted counts as added.
func (c *Channel) Working(ctx context.Context, msg bus.InboundMessage) func(context.Context) {
	ref := slack.NewRefToMessage(metaString(msg.Metadata, "channel"), metaString(msg.Metadata, "ts"))
	if ref.Channel == "" || ref.Timestamp == "" {
		return nil
	}
	working, done := emoji(c.cfg.ReactEmoji), emoji(c.cfg.DoneEmoji)
	reacted := working != "" && c.react(ctx, working, ref, false)
	return func(ctx context.Context) {
		if reacted {
			c.react(ctx, working, ref, true)
		}
		if done != "" {
			c.react(ctx, done, ref, false)
		}
	}
}

// react adds (or removes) a reaction and reports whether it is there (or
// gone) after.
func (c *Channel) react(ctx context.Context, name string, ref slack.ItemRef, remove bool) bool {
	var err error
	if remove {
		err = c.api.RemoveReactionContext(ctx, name, ref)
	} else {
		err = c.api.AddReactionContext(ctx, name, ref)
	}
	var se slack.SlackErrorResponse
	if errors.As(err, &se) && (se.Err == "already_reacted" || se.Err == "no_reaction") {
		return true
	}
	if err != nil {
		c.Logger().Debug("slack reaction not changed", "channel", ref.Channel, "ts", ref.Timestamp, "emoji", name,
			"remove", remove, "err", apiError("reactions", "botToken", err))
		return false
	}
	return true
}
