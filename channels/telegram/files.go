package telegram

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/channels"
)

// maxUploadBytes is the largest file the Bot API takes from a bot (50 MB).
const maxUploadBytes = 50 << 20

// sendFile sends a file of an answer, by its extension as nanobot does: a
// photo (.jpg, .jpeg, .png, .webp), a voice note (.ogg, .oga), an audio
// (.mp3, .m4a, .wav, .aac, .flac), a video (.mp4, .mov, .webm, .mkv) or,
// for anything else, a document. A file that cannot be sent (missing,
// not a regular file, over 50 MB, refused by Telegram) is said in the
// chat instead ("[file not sent: report.pdf]"), as nanobot does, and the
// rest of the answer goes on; only what a retry may cure is an error.
func (c *Channel) sendFile(ctx context.Context, chat *any, path string, o sendOpts) error {
	err := c.upload(ctx, chat, path, o)
	if err == nil || channels.IsTemporary(err) || ctx.Err() != nil {
		return err
	}
	c.Logger().Warn("telegram: a file of an answer not sent; the chat is told", "chat_id", *chat, "file", baseName(path), "err", err)
	return c.sendText(ctx, chat, "[file not sent: "+baseName(path)+"]", o)
}

// upload sends the file at path with the call its kind needs.
func (c *Channel) upload(ctx context.Context, chat *any, path string, o sendOpts) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return err
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", baseName(path))
	case info.Size() > maxUploadBytes:
		return fmt.Errorf("%s is over Telegram's 50 MB for a bot", baseName(path))
	}
	kind := fileKind(path)
	err = c.call(ctx, chat, func(chat any) error {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		file := &models.InputFileUpload{Filename: baseName(path), Data: f}
		rp := o.replyParameters()
		var err error
		switch kind {
		case "photo":
			_, err = c.bot.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: chat, MessageThreadID: o.thread, Photo: file, ReplyParameters: rp})
		case "voice":
			_, err = c.bot.SendVoice(ctx, &bot.SendVoiceParams{ChatID: chat, MessageThreadID: o.thread, Voice: file, ReplyParameters: rp})
		case "audio":
			_, err = c.bot.SendAudio(ctx, &bot.SendAudioParams{ChatID: chat, MessageThreadID: o.thread, Audio: file, ReplyParameters: rp})
		case "video":
			_, err = c.bot.SendVideo(ctx, &bot.SendVideoParams{ChatID: chat, MessageThreadID: o.thread, Video: file, ReplyParameters: rp})
		default:
			_, err = c.bot.SendDocument(ctx, &bot.SendDocumentParams{ChatID: chat, MessageThreadID: o.thread, Document: file, ReplyParameters: rp})
		}
		return err
	})
	return c.apiError("send "+kind, err)
}

// fileKind is how a file is sent, by its extension.
func fileKind(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jpg", ".jpeg", ".png", ".webp":
		return "photo"
	case ".ogg", ".oga":
		return "voice"
	case ".mp3", ".m4a", ".wav", ".aac", ".flac":
		return "audio"
	case ".mp4", ".mov", ".webm", ".mkv":
		return "video"
	}
	return "document"
}

// baseName is a file's name, without the folders of its path.
func baseName(path string) string { return filepath.Base(path) }
