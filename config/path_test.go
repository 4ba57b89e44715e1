package config

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExpandHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct {
		name, in, want, wantErr string
	}{
		{name: "tilde alone", in: "~", want: home},
		{name: "tilde slash", in: "~/.nanobot/config.json", want: filepath.Join(home, ".nanobot", "config.json")},
		{name: "absolute unchanged", in: "/etc/x.json", want: "/etc/x.json"},
		{name: "relative unchanged", in: "conf/x.json", want: "conf/x.json"},
		{name: "tilde inside unchanged", in: "a/~/b", want: "a/~/b"},
		{name: "empty unchanged", in: "", want: ""},
		{name: "other user", in: "~bob/x", wantErr: `expand "~bob/x": only "~/" is supported, not "~user/"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExpandHome(tt.in)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestExpandHomeWithoutHome(t *testing.T) {
	t.Setenv("HOME", "")
	_, err := ExpandHome("~/x")
	assert.ErrorContains(t, err, `expand "~/x": `)
	assert.Equal(t, "~/.nanobot/config.json", DefaultPath())

	_, err = Load(LoadOptions{})
	assert.ErrorContains(t, err, `config: expand "~/.nanobot/config.json": `)
}

func TestDefaultPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	assert.Equal(t, filepath.Join(home, ".nanobot", "config.json"), DefaultPath())
}
