package slack

import (
	"context"
	"strings"

	"github.com/switchboard-dev/switchboard/channels"
)

// checkBotToken proves the bot token before the channel runs, with
// auth.test, which also gives the bot's user id (how its mentions are
// told from others'). A token Slack refuses is an error naming its key; a
// failure that may pass (the network, Slack's servers) is logged, and the
// channel starts all the same. The app-level token is proven by the first
// Socket Mode connection (see Start).
func (c *Channel) checkBotToken(ctx context.Context) error {
	c.botUserID = ""
	auth, err := c.api.AuthTestContext(ctx)
	if err := apiError("auth.test", "botToken", err); err != nil {
		if !channels.IsTemporary(err) {
			return err
		}
		c.Logger().Warn("the bot's user id is unknown: in channels only app_mention events count as mentions", "err", err)
		return nil
	}
	c.botUserID = auth.UserID
	c.Logger().Info("slack bot", "user_id", auth.UserID, "team", auth.Team)
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
