package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/channels"
)

// maxDownloadBytes is the largest file the Bot API lets a bot download
// (20 MB); larger ones are named in the text, not downloaded.
const maxDownloadBytes = 20 << 20

// fileRef is the file a message carries.
type fileRef struct {
	kind   string // image, voice, audio, file, video, animation: the word of "[image: path]"
	id     string // file_id, for getFile
	unique string // file_unique_id, for its name
	name   string // the sender's file name, when the message has one
	mime   string
	size   int64
}

// fileOf returns the file of a message (a photo's largest size), if any.
func fileOf(m *models.Message) (fileRef, bool) {
	switch {
	case len(m.Photo) > 0:
		p := m.Photo[len(m.Photo)-1]
		return fileRef{kind: "image", id: p.FileID, unique: p.FileUniqueID, mime: "image/jpeg", size: int64(p.FileSize)}, true
	case m.Voice != nil:
		return fileRef{kind: "voice", id: m.Voice.FileID, unique: m.Voice.FileUniqueID, mime: m.Voice.MimeType, size: m.Voice.FileSize}, true
	case m.Audio != nil:
		a := m.Audio
		return fileRef{kind: "audio", id: a.FileID, unique: a.FileUniqueID, name: a.FileName, mime: a.MimeType, size: a.FileSize}, true
	case m.Document != nil:
		d := m.Document
		return fileRef{kind: "file", id: d.FileID, unique: d.FileUniqueID, name: d.FileName, mime: d.MimeType, size: d.FileSize}, true
	case m.Video != nil:
		v := m.Video
		return fileRef{kind: "video", id: v.FileID, unique: v.FileUniqueID, name: v.FileName, mime: v.MimeType, size: v.FileSize}, true
	case m.VideoNote != nil:
		v := m.VideoNote
		return fileRef{kind: "video", id: v.FileID, unique: v.FileUniqueID, mime: "video/mp4", size: int64(v.FileSize)}, true
	case m.Animation != nil:
		a := m.Animation
		return fileRef{kind: "animation", id: a.FileID, unique: a.FileUniqueID, name: a.FileName, mime: a.MimeType, size: a.FileSize}, true
	}
	return fileRef{}, false
}

// attachment downloads the file of message m into the media folder and
// returns the line the agent reads about it ("[image: /path]", as nanobot
// writes it) and its path. A file over the Bot API's 20 MB, or a download
// that fails after the retries, is said in the line ("[voice: download
// failed]") and has no path: the message is handed over all the same.
// A message without a file gives "".
func (c *Channel) attachment(ctx context.Context, m *models.Message) (line, path string) {
	f, ok := fileOf(m)
	if !ok {
		return "", ""
	}
	if f.size > maxDownloadBytes {
		return "[" + f.kind + ": too large to download (over 20 MB)]", ""
	}
	name := channels.SafeFileName(f.name)
	if f.name == "" {
		name = f.unique + extension(f.kind, f.mime)
	}
	name = strconv.Itoa(m.ID) + "_" + name
	_, err := c.retry.Do(ctx, func(ctx context.Context) error {
		var err error
		path, err = c.download(ctx, f.id, name)
		return err
	}, nil)
	if err != nil {
		why := "download failed"
		if errors.Is(err, channels.ErrMediaTooLarge) {
			why = "too large"
		}
		c.Logger().Warn("telegram attachment not downloaded", "message_id", m.ID, "kind", f.kind, "err", err)
		return "[" + f.kind + ": " + why + "]", ""
	}
	return "[" + f.kind + ": " + path + "]", path
}

// download fetches a file by its file_id (getFile, then its URL, which
// holds the token and is never logged) and saves it as name.
func (c *Channel) download(ctx context.Context, fileID, name string) (string, error) {
	f, err := c.bot.GetFile(ctx, &bot.GetFileParams{FileID: fileID})
	if err != nil {
		return "", c.apiError("getFile", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.bot.FileDownloadLink(f), nil)
	if err != nil {
		return "", c.apiError("download", err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return "", c.apiError("download", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("telegram download %s: HTTP %d", f.FilePath, resp.StatusCode)
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return "", channels.Temporary(err)
		}
		return "", err
	}
	path, err := channels.SaveMedia(c.media, name, resp.Body, maxDownloadBytes)
	if err != nil && !errors.Is(err, channels.ErrMediaTooLarge) {
		return "", fmt.Errorf("%s.mediaDir: %w", keyPath, err)
	}
	return path, err
}

// extension is the file extension of a file without a name, from its
// MIME type or its kind (nanobot's choice).
func extension(kind, mimeType string) string {
	switch mimeType {
	case "image/jpeg":
		return ".jpg"
	case "image/png":
		return ".png"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "audio/ogg":
		return ".ogg"
	case "audio/mpeg":
		return ".mp3"
	case "audio/mp4":
		return ".m4a"
	case "video/mp4":
		return ".mp4"
	case "video/quicktime":
		return ".mov"
	case "video/webm":
		return ".webm"
	}
	switch kind {
	case "image":
		return ".jpg"
	case "voice":
		return ".ogg"
	case "audio":
		return ".mp3"
	case "video", "animation":
		return ".mp4"
	}
	return ""
}
