package channels

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/config"
)

// ErrMediaTooLarge is returned by SaveMedia for media over its limit.
var ErrMediaTooLarge = errors.New("media too large")

// maxMediaName caps the length of a saved media file's name, in bytes.
const maxMediaName = 120

// Workspace returns the agent's workspace folder, agents.defaults.workspace
// with "~" expanded (config.DefaultWorkspace when Deps has no Config).
func (d Deps) Workspace() (string, error) {
	ws := config.DefaultWorkspace
	if d.Config != nil && d.Config.Agents.Defaults.Workspace != "" {
		ws = d.Config.Agents.Defaults.Workspace
	}
	path, err := config.ExpandHome(ws)
	if err != nil {
		return "", fmt.Errorf("agents.defaults.workspace: %w", err)
	}
	return path, nil
}

// Path returns a channel's file or folder: configured ("~" expanded) when
// the key's value is set, otherwise def in the agent's workspace. key is
// the key's path ("channels.telegram.journal"), the prefix of its error.
func (d Deps) Path(key, configured, def string) (string, error) {
	if configured != "" {
		p, err := config.ExpandHome(configured)
		if err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
		return p, nil
	}
	ws, err := d.Workspace()
	if err != nil {
		return "", err
	}
	return filepath.Join(ws, def), nil
}

// MediaDir returns the folder where channel saves the media it downloads
// for the agent (SaveMedia): media/<channel> in the workspace.
func (d Deps) MediaDir(channel string) (string, error) {
	ws, err := d.Workspace()
	if err != nil {
		return "", err
	}
	return filepath.Join(ws, "media", channel), nil
}

// SaveMedia writes what r yields, at most limit bytes, to a new file in
// dir (created private to the user, as the file is) and returns its path,
// which a channel hands to the agent in bus.InboundMessage.Media. The
// file is named after name made safe (its last path element, without
// control or reserved characters, at most 120 bytes); an existing file is
// never replaced: "-2", "-3", ... are added before the extension instead.
// Media over the limit is not kept, and ErrMediaTooLarge returned.
func SaveMedia(dir, name string, r io.Reader, limit int64) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("save media: %w", err)
	}
	f, path, err := createUnique(dir, SafeFileName(name))
	if err != nil {
		return "", fmt.Errorf("save media: %w", err)
	}
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("%w: over %d bytes", ErrMediaTooLarge, limit)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("save media %s: %w", filepath.Base(path), err)
	}
	return path, nil
}

// createUnique creates a new file named name in dir, or name with "-2",
// "-3", ... before its extension when that exists.
func createUnique(dir, name string) (*os.File, string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; ; i++ {
		path := filepath.Join(dir, name)
		if i > 1 {
			path = filepath.Join(dir, stem+"-"+strconv.Itoa(i)+ext)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && i < 1000 {
			continue
		}
		return f, path, err
	}
}

// SafeFileName returns name as a file name that stays in the folder it is
// put in: its last path element (after / or \), without control
// characters or characters some systems reserve, not starting with a dot,
// at most 120 bytes (the extension kept); "file" when nothing is left.
func SafeFileName(name string) string {
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || strings.ContainsRune(`<>:"|?*`, r) || r == unicode.ReplacementChar {
			return -1
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ".")
	if name == "" {
		return "file"
	}
	if len(name) > maxMediaName {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := name[:maxMediaName-len(ext)]
		for !utf8.ValidString(stem) { // cut inside a rune
			stem = stem[:len(stem)-1]
		}
		name = stem + ext
	}
	return name
}
