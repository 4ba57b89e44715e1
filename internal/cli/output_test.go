package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgo(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		then time.Time
		want string
	}{
		{time.Time{}, "never"},
		{now, "just now"},
		{now.Add(-999 * time.Millisecond), "just now"},
		{now.Add(-3 * time.Second), "3s ago"},
		{now.Add(-59 * time.Second), "59s ago"},
		{now.Add(-90 * time.Second), "1m ago"},
		{now.Add(-59 * time.Minute), "59m ago"},
		{now.Add(-5 * time.Hour), "5h ago"},
		{now.Add(-47 * time.Hour), "47h ago"},
		{now.Add(-72 * time.Hour), "3d ago"},
		{now.Add(2 * time.Minute), "in 2m"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ago(now, tt.then), "%v", now.Sub(tt.then))
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "abc", clip("abc", 3))
	assert.Equal(t, "ab…", clip("abcd", 3))
	assert.Equal(t, "帮我…", clip("帮我写排序函数", 3), "counts runes, not bytes")
}

func TestCells(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "-", orDash(""))
	assert.Equal(t, "x", orDash("x"))
	assert.Equal(t, "-", list(nil))
	assert.Equal(t, "a,b", list([]string{"a", "b"}))
}

func TestPalette(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	assert.False(t, newPalette(&buf, nil).on, "not a file")
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, newPalette(f, nil).on, "a regular file is not a terminal")
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		assert.True(t, newPalette(tty, nil).on, "a terminal")
		assert.False(t, newPalette(tty, []string{"NO_COLOR="}).on, "NO_COLOR, even empty, turns colour off")
	}

	on := palette{on: true}
	assert.Equal(t, painted("\x1b[32midle\x1b[0m"), on.paint(colorGreen, "idle"))
	assert.Equal(t, len(on.paint(colorDefault, "x")), len(on.paint(colorRed, "x")), "same width for tabwriter")
	assert.Equal(t, painted("idle"), palette{}.paint(colorGreen, "idle"))
}

func TestTable(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := &fitTable{out: &buf}
	row(w, "A", "BB")
	row(w, "CCC", "D")
	require.NoError(t, w.Flush())
	assert.Equal(t, "A    BB\nCCC  D\n", buf.String())
}

// A table wider than the terminal shortens its widest columns, cutting
// their cells with "…"; painted cells and narrow columns stay whole; wide
// runes count two columns.
func TestTableFitsTheWidth(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := &fitTable{out: &buf, max: 40}
	on := palette{on: true}
	row(w, "ID", "STATUS", "TEXT")
	row(w, "01a20cf7-4333-7207-96a8-bc86af99da93", on.paint(colorGreen, "idle"), "负责代码编写和修改的 agent, and more text")
	require.NoError(t, w.Flush())
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 2)
	for _, l := range lines {
		assert.LessOrEqual(t, cellWidth(l), 40, "%q", l)
	}
	assert.Contains(t, lines[1], "01a20cf7", "an id keeps its start")
	assert.Contains(t, lines[1], "…")
	assert.Contains(t, lines[1], "\x1b[32midle\x1b[0m", "a painted cell is whole")

	buf.Reset()
	whole := &fitTable{out: &buf}
	row(whole, "01a20cf7-4333-7207-96a8-bc86af99da93", "x")
	require.NoError(t, whole.Flush())
	assert.Contains(t, buf.String(), "01a20cf7-4333-7207-96a8-bc86af99da93", "no width: whole")
	assert.Equal(t, 2, cellWidth("负"), "a wide rune takes two columns")
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, writeJSON(&buf, map[string]string{"text": "<b> & 排序"}))
	assert.Equal(t, `{"text":"<b> & 排序"}`+"\n", buf.String(), "one line, nothing escaped")
}

func TestTilde(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	assert.Equal(t, filepath.Join("~", ".nanobot", "mailboxes"), tilde(filepath.Join(home, ".nanobot", "mailboxes")))
	assert.Equal(t, "/srv/mailboxes", tilde("/srv/mailboxes"))
	assert.Equal(t, home+"-other/x", tilde(home+"-other/x"))
	assert.Equal(t, "~", tilde(home))
}
