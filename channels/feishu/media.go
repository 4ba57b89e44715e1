package feishu

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"
	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"

	"github.com/switchboard-dev/switchboard/channels"
)

// maxMediaBytes caps a downloaded attachment (Feishu's own cap on files
// sent in chats is 100 MB; the agent reads far less).
const maxMediaBytes = 50 << 20

// attachment downloads the image or file of a message (kind is the
// message type: image, file, audio, media) into the media folder and
// returns the line the agent reads about it ("[image: /path]", as nanobot
// writes it) and its path; a download that fails after the retries is
// said in the line ("[image: download failed]") and has no path: the
// message is handed over all the same.
func (c *Channel) attachment(ctx context.Context, messageID, kind, key, name string) (line, path string) {
	if key == "" {
		return "[" + kind + ": missing key]", ""
	}
	resType := "file" // Feishu downloads audio and video as files
	if kind == "image" {
		resType = "image"
	}
	var saved string
	_, err := c.retry.Do(ctx, func(ctx context.Context) error {
		req := larkim.NewGetMessageResourceReqBuilder().MessageId(messageID).FileKey(key).Type(resType).Build()
		resp, err := c.client.Im.V1.MessageResource.Get(ctx, req)
		var code int
		var msg string
		if resp != nil {
			code, msg = resp.Code, resp.Msg
		}
		if err := apiError("download "+kind, err, apiResp(resp), code, msg); err != nil {
			return err
		}
		fileName := resp.FileName
		if fileName == "" {
			fileName = name
		}
		if fileName == "" {
			fileName = defaultName(kind, key)
		}
		if kind == "audio" && !hasExt(fileName, ".opus", ".ogg", ".oga") {
			fileName += ".ogg" // Feishu's voice messages are Opus in Ogg
		}
		saved, err = channels.SaveMedia(c.media, messageID+"_"+fileName, resp.File, maxMediaBytes)
		return err
	}, nil)
	if err != nil {
		why := "download failed"
		if errors.Is(err, channels.ErrMediaTooLarge) {
			why = "too large"
		}
		c.Logger().Warn("feishu attachment not downloaded", "message_id", messageID, "kind", kind, "err", err)
		return "[" + kind + ": " + why + "]", ""
	}
	return "[" + kind + ": " + saved + "]", saved
}

// apiResp returns the raw response of a resource call, or nil.
func apiResp(r *larkim.GetMessageResourceResp) *larkcore.ApiResp {
	if r == nil {
		return nil
	}
	return r.ApiResp
}

func defaultName(kind, key string) string {
	if len(key) > 16 {
		key = key[:16]
	}
	if kind == "image" {
		return key + ".jpg"
	}
	return key
}

func hasExt(name string, exts ...string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range exts {
		if ext == e {
			return true
		}
	}
	return false
}
