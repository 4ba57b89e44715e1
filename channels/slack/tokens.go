package slack

import (
	"context"
	"strings"

	"github.com/switchboard-dev/switchboard/channels"
)

// checkTokens proves both tokens before the channel runs: auth.test with
// the bot token, which also gives the bot's user id (how its mentions are
// told from others'), and apps.connections.open with the app-level token.
// A token Slack refuses is an error naming its key; a failure that may
// pass (the network, Slack's servers) is logged, and the channel starts
// all the same: Socket Mode keeps trying to connect. c.mu is held.
func (c *Channel) checkTokens(ctx context.Context) error {
	auth, err := c.api.AuthTestContext(ctx)
	if err := apiError("auth.test", "botToken", err); err != nil {
		if !channels.IsTemporary(err) {
			return err
		}
		c.Logger().Warn("the bot's user id is unknown: in channels only app_mention events count as mentions", "err", err)
	} else {
		c.botUserID = auth.UserID
		c.Logger().Info("slack bot", "user_id", auth.UserID, "team", auth.Team)
	}
	_, _, err = c.api.StartSocketModeContext(ctx)
	if err := apiError("apps.connections.open", "appToken", err); err != nil {
		if !channels.IsTemporary(err) {
			return err
		}
		c.Logger().Warn("socket mode not open yet; trying again in the background", "err", err)
	}
	return nil
}

// logPolicy says at start who the bot answers, so that a policy that
// takes nothing is seen at once.
func (c *Channel) logPolicy() {
	dm := c.cfg.DM.Policy
	switch {
	case !c.cfg.DM.Enabled:
		dm = "disabled"
	case dm == DMAllowlist && len(c.cfg.DM.AllowFrom) == 0:
		dm = "allowlist of no one: direct messages are refused"
	}
	group := c.cfg.GroupPolicy
	if group == GroupAllowlist && len(c.cfg.GroupAllowFrom) == 0 {
		group = "allowlist of no channel: channel messages are refused"
	}
	c.Logger().Info("slack policies", "dm", dm, "groupPolicy", group, "allowFrom", strings.Join(c.cfg.AllowFrom, ","),
		"replyInThread", c.cfg.ReplyInThread)
}
