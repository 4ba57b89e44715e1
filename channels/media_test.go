package channels_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

func TestSafeFileName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"photo.jpg", "photo.jpg"},
		{"../../etc/passwd", "passwd"},
		{`..\..\windows\system.ini`, "system.ini"},
		{"..", "file"},
		{"", "file"},
		{".hidden", "hidden"},
		{"a\x00b\nc.txt", "abc.txt"},
		{`what?<is>:"this"|*.png`, "whatisthis.png"},
		{"报告.pdf", "报告.pdf"},
		{"bad\xffutf8.txt", "badutf8.txt"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, channels.SafeFileName(tt.in), "SafeFileName(%q)", tt.in)
	}
	long := channels.SafeFileName(strings.Repeat("文", 100) + ".jpeg")
	assert.LessOrEqual(t, len(long), 120)
	assert.True(t, strings.HasSuffix(long, "文.jpeg"), "the extension is kept and no rune is cut: %q", long)
}

func TestSaveMedia(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "media", "chat")
	p1, err := channels.SaveMedia(dir, "../x.png", strings.NewReader("one"), 10)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "x.png"), p1)
	p2, err := channels.SaveMedia(dir, "x.png", strings.NewReader("two"), 10)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "x-2.png"), p2, "an existing file is never replaced")
	data, err := os.ReadFile(p1)
	require.NoError(t, err)
	assert.Equal(t, "one", string(data))
	info, err := os.Stat(p1)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	info, err = os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())

	_, err = channels.SaveMedia(dir, "big.bin", strings.NewReader(strings.Repeat("x", 11)), 10)
	require.ErrorIs(t, err, channels.ErrMediaTooLarge)
	_, statErr := os.Stat(filepath.Join(dir, "big.bin"))
	assert.ErrorIs(t, statErr, os.ErrNotExist, "nothing is kept of media over the limit")
}

func TestDepsMediaDir(t *testing.T) {
	cfg := config.Default()
	cfg.Agents.Defaults.Workspace = "/srv/agent"
	dir, err := channels.Deps{Config: cfg}.MediaDir("feishu")
	require.NoError(t, err)
	assert.Equal(t, "/srv/agent/media/feishu", dir)
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	dir, err = channels.Deps{}.MediaDir("feishu")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, ".nanobot", "workspace", "media", "feishu"), dir)
}

// Path: a configured value wins ("~" expanded); otherwise the default sits
// in the agent's workspace; a value that cannot be expanded names its key.
func TestDepsPath(t *testing.T) {
	cfg := config.Default()
	cfg.Agents.Defaults.Workspace = "/srv/agent"
	deps := channels.Deps{Config: cfg}
	p, err := deps.Path("channels.x.journal", "", "x-journal.jsonl")
	require.NoError(t, err)
	assert.Equal(t, "/srv/agent/x-journal.jsonl", p)
	p, err = deps.Path("channels.x.journal", "/var/lib/x.jsonl", "x-journal.jsonl")
	require.NoError(t, err)
	assert.Equal(t, "/var/lib/x.jsonl", p)
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	p, err = deps.Path("channels.x.journal", "~/x.jsonl", "x-journal.jsonl")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, "x.jsonl"), p)
	_, err = deps.Path("channels.x.journal", "~nosuchuser/x.jsonl", "x-journal.jsonl")
	require.ErrorContains(t, err, "channels.x.journal: ")
}
