package feishu

import (
	"context"

	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"

	"github.com/switchboard-dev/switchboard/bus"
)

// Working implements channels.Progress: it reacts to the message with
// reactEmoji while the agent works on it, as nanobot does, and once the
// message is answered removes the reaction and adds doneEmoji (when set).
// A reaction that fails is logged at debug: it is a courtesy.
func (c *Channel) Working(ctx context.Context, msg bus.InboundMessage) func(context.Context) {
	id := metaString(msg.Metadata, "message_id")
	if id == "" || (c.cfg.ReactEmoji == "" && c.cfg.DoneEmoji == "") {
		return nil
	}
	reaction := ""
	if c.cfg.ReactEmoji != "" {
		reaction = c.react(ctx, id, c.cfg.ReactEmoji)
	}
	return func(ctx context.Context) {
		if reaction != "" {
			req := larkim.NewDeleteMessageReactionReqBuilder().MessageId(id).ReactionId(reaction).Build()
			resp, err := c.client.Im.V1.MessageReaction.Delete(ctx, req)
			if resp != nil {
				err = apiError("remove reaction", err, resp.ApiResp, resp.Code, resp.Msg)
			}
			if err != nil {
				c.Logger().Debug("feishu reaction not removed", "message_id", id, "err", err)
			}
		}
		if c.cfg.DoneEmoji != "" {
			c.react(ctx, id, c.cfg.DoneEmoji)
		}
	}
}

// react adds a reaction and returns its id ("" when it failed).
func (c *Channel) react(ctx context.Context, id, emoji string) string {
	req := larkim.NewCreateMessageReactionReqBuilder().MessageId(id).Body(larkim.NewCreateMessageReactionReqBodyBuilder().
		ReactionType(larkim.NewEmojiBuilder().EmojiType(emoji).Build()).Build()).Build()
	resp, err := c.client.Im.V1.MessageReaction.Create(ctx, req)
	if resp != nil {
		err = apiError("react", err, resp.ApiResp, resp.Code, resp.Msg)
	}
	if err != nil {
		c.Logger().Debug("feishu reaction not added", "message_id", id, "emoji", emoji, "err", err)
		return ""
	}
	if resp.Data == nil || resp.Data.ReactionId == nil {
		return ""
	}
	return *resp.Data.ReactionId
}
