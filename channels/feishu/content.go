package feishu

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"

	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"
)

// content returns the text the agent reads for a message of msgType with
// content raw (Feishu's content JSON), and the paths of its attachments,
// downloaded. Message types the channel does not read become a
// placeholder ("[sticker]"), as in nanobot.
func (c *Channel) content(ctx context.Context, id, msgType, raw string, mentions []*larkim.MentionEvent) (string, []string) {
	var body struct {
		Text     string `json:"text"`
		ImageKey string `json:"image_key"`
		FileKey  string `json:"file_key"`
		FileName string `json:"file_name"`
	}
	_ = json.Unmarshal([]byte(raw), &body) // a malformed content reads as empty
	switch msgType {
	case "text":
		return c.resolveMentions(c.stripBotMention(body.Text, mentions), mentions), nil
	case "post":
		text, images := postContent(raw)
		var media []string
		for _, key := range images {
			line, path := c.attachment(ctx, id, "image", key, "")
			text = strings.TrimSpace(text + "\n" + line)
			if path != "" {
				media = append(media, path)
			}
		}
		return text, media
	case "image":
		line, path := c.attachment(ctx, id, "image", body.ImageKey, "")
		return line, nonEmpty(path)
	case "file", "audio", "media":
		line, path := c.attachment(ctx, id, msgType, body.FileKey, body.FileName)
		return line, nonEmpty(path)
	}
	return "[" + msgType + "]", nil
}

func nonEmpty(path string) []string {
	if path == "" {
		return nil
	}
	return []string{path}
}

// mentionKey matches a mention placeholder ("@_user_1") not followed by
// more of a name, so that @_user_1 does not match @_user_10.
func mentionKey(key string) *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(key) + `(?:[^A-Za-z0-9_]|$)`)
}

// stripBotMention removes a mention of the bot that starts the text
// ("@bot /new" is the command "/new").
func (c *Channel) stripBotMention(text string, mentions []*larkim.MentionEvent) string {
	trimmed := strings.TrimLeft(text, " ")
	for _, m := range mentions {
		key := deref(m.Key)
		if key == "" || !c.isBot(m) || !strings.HasPrefix(trimmed, key) {
			continue
		}
		if loc := mentionKey(key).FindStringIndex(trimmed); loc != nil && loc[0] == 0 {
			if rest := strings.TrimSpace(trimmed[len(key):]); rest != "" {
				return rest
			}
		}
	}
	return text
}

// resolveMentions replaces the mention placeholders of the text by
// "@Name (open_id)", as nanobot does, so that the agent knows who is meant.
func (c *Channel) resolveMentions(text string, mentions []*larkim.MentionEvent) string {
	for _, m := range mentions {
		key := deref(m.Key)
		if key == "" || m.Id == nil || !strings.Contains(text, key) {
			continue
		}
		name := deref(m.Name)
		if name == "" {
			name = strings.TrimPrefix(key, "@")
		}
		who := "@" + name
		if open := deref(m.Id.OpenId); open != "" {
			who += " (" + open + ")"
		}
		re := mentionKey(key)
		text = re.ReplaceAllStringFunc(text, func(s string) string { return who + s[len(key):] })
	}
	return text
}

// postElement is one element of a post's rows.
type postElement struct {
	Tag      string `json:"tag"`
	Text     string `json:"text"`
	UserName string `json:"user_name"`
	ImageKey string `json:"image_key"`
	Language string `json:"language"`
}

// postBlock is a post in one language.
type postBlock struct {
	Title   string          `json:"title"`
	Content [][]postElement `json:"content"`
}

// postContent reads a post (rich text) message: its title and text, one
// line per row, and the keys of its images. It takes the three shapes
// Feishu uses (nanobot's reader does the same): the post itself, a post
// per language ({"zh_cn": ...}), or either inside {"post": ...}.
func postContent(raw string) (text string, images []string) {
	var root map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &root) != nil {
		return "", nil
	}
	if inner, ok := root["post"]; ok {
		var unwrapped map[string]json.RawMessage
		if json.Unmarshal(inner, &unwrapped) == nil {
			root = unwrapped
		}
	}
	candidates := []json.RawMessage{}
	if _, ok := root["content"]; ok {
		whole, _ := json.Marshal(root)
		candidates = append(candidates, whole)
	}
	for _, lang := range []string{"zh_cn", "en_us", "ja_jp"} {
		if b, ok := root[lang]; ok {
			candidates = append(candidates, b)
		}
	}
	for _, b := range root {
		candidates = append(candidates, b)
	}
	for _, b := range candidates {
		var block postBlock
		if json.Unmarshal(b, &block) != nil || block.Content == nil {
			continue
		}
		if text, images = block.read(); text != "" || len(images) > 0 {
			return text, images
		}
	}
	return "", nil
}

// read returns the block's text and image keys.
func (p postBlock) read() (string, []string) {
	var lines, images []string
	if p.Title != "" {
		lines = append(lines, p.Title)
	}
	for _, row := range p.Content {
		var line []string
		for _, el := range row {
			switch el.Tag {
			case "text", "a", "md":
				line = append(line, el.Text)
			case "at":
				name := el.UserName
				if name == "" {
					name = "user"
				}
				line = append(line, "@"+name)
			case "code_block":
				line = append(line, "\n```"+el.Language+"\n"+el.Text+"\n```\n")
			case "img":
				if el.ImageKey != "" {
					images = append(images, el.ImageKey)
				}
			}
		}
		if l := strings.TrimSpace(strings.Join(line, "")); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n"), images
}
