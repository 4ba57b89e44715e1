package feishu

import (
	"context"
	"encoding/json"
	"errors"

	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"

	"github.com/switchboard-dev/switchboard/channels"
)

// botInfoPath is the open platform's call for the bot's own identity.
const botInfoPath = "/open-apis/bot/v3/info"

// fetchBotInfo asks Feishu for the bot's open_id, which tells the
// mentions of the bot in groups from those of other users; it also proves
// the credentials. Credentials refused are an error naming the key; any
// other failure is logged and the channel goes on with a heuristic for
// mentions (nanobot's). c.mu is held.
func (c *Channel) fetchBotInfo(ctx context.Context) error {
	var body struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
		Bot  struct {
			OpenID string `json:"open_id"`
		} `json:"bot"`
	}
	resp, err := c.client.Get(ctx, botInfoPath, nil, larkcore.AccessTokenTypeTenant)
	if err == nil {
		err = json.Unmarshal(resp.RawBody, &body)
	}
	if err := apiError("bot info", err, resp, body.Code, body.Msg); err != nil {
		if errors.Is(err, ErrCredentials) {
			return err
		}
		if !channels.IsTemporary(err) && ctx.Err() != nil {
			return err
		}
		c.Logger().Warn("the bot's open_id is unknown: a group message counts as mentioning the bot when it mentions any app", "err", err)
		return nil
	}
	c.botOpenID = body.Bot.OpenID
	c.Logger().Info("feishu bot", "open_id", c.botOpenID)
	return nil
}
