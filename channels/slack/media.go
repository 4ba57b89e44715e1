package slack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/slack-go/slack"

	"github.com/switchboard-dev/switchboard/channels"
)

// maxMediaBytes caps a downloaded file (the agent reads far less than
// what Slack lets people share).
const maxMediaBytes = 50 << 20

// download saves a file shared in a message into the media folder, with
// the bot token (Slack's files are private to the workspace), and returns
// the line the agent reads about it ("[file: /path]", "[image: /path]")
// and its path; a file that cannot be had after the retries is said in
// the line ("[file: notes.txt: download failed ...]") and has no path:
// the message is handed over all the same.
func (c *Channel) download(ctx context.Context, f slack.File) (line, path string) {
	kind := "file"
	if strings.HasPrefix(f.Mimetype, "image/") {
		kind = "image"
	}
	name := f.Name
	if name == "" {
		name = f.Title
	}
	if name == "" {
		name = "slack-file"
	}
	link := f.URLPrivateDownload
	if link == "" {
		link = f.URLPrivate
	}
	switch {
	case link == "" || f.IsExternal:
		return "[" + kind + ": " + name + ": not downloadable (no private url)]", ""
	case f.Size > maxMediaBytes:
		return "[" + kind + ": " + name + ": too large]", ""
	}
	_, err := c.retry.Do(ctx, func(ctx context.Context) error {
		var err error
		path, err = c.save(ctx, link, f.ID+"_"+name)
		return err
	}, nil)
	if err != nil {
		why := "download failed; check that the bot has the files:read scope and can see the file"
		switch {
		case errors.Is(err, channels.ErrMediaTooLarge):
			why = "too large"
		case errors.Is(err, errNotSaved):
			why = "not saved, see " + keyPath + ".mediaDir"
		}
		c.Logger().Warn("slack file not downloaded", "file", f.ID, "err", err)
		return "[" + kind + ": " + name + ": " + why + "]", ""
	}
	return "[" + kind + ": " + path + "]", path
}

// errNotSaved marks a file downloaded that could not be written.
var errNotSaved = errors.New("not saved")

// save downloads link into a new file of the media folder named after
// name, and returns its path. A failure to write names the key mediaDir.
func (c *Channel) save(ctx context.Context, link, name string) (string, error) {
	pr, pw := io.Pipe()
	got := make(chan error, 1)
	go func() {
		err := apiError("file download", "botToken", c.api.GetFileContext(ctx, link, pw))
		pw.CloseWithError(err)
		got <- err
	}()
	path, err := channels.SaveMedia(c.media, name, pr, maxMediaBytes)
	_ = pr.Close() // a download cut short (too large) ends
	derr := <-got
	switch {
	case errors.Is(err, channels.ErrMediaTooLarge):
		return "", err
	case derr != nil && !errors.Is(derr, io.ErrClosedPipe): // the download failed, not the writing
		if err == nil {
			_ = os.Remove(path) // whole, but the download says it is not
		}
		return "", derr
	case err != nil:
		return "", fmt.Errorf("%s.mediaDir: %w: %w", keyPath, errNotSaved, err)
	}
	return path, nil
}
