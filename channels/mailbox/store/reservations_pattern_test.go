package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func TestCleanPattern(t *testing.T) {
	for in, want := range map[string]string{
		"src/main.go": "src/main.go", "./src//main.go": "src/main.go", `src\win.go`: "src/win.go",
		"docs/": "docs", " a/*.md ": "a/*.md", "/abs/path": "/abs/path", "a/../b": "b",
	} {
		got, err := store.CleanPattern(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", " ", ".", "/", "**", "a/[x", "a\x00b"} {
		_, err := store.CleanPattern(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestOverlap(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"src/main.go", "src/main.go", true},
		{"src/main.go", "src/util.go", false},
		{"src/*.go", "src/main.go", true},
		{"src/*.go", "src/sub/main.go", false},
		{"src/**", "src/sub/main.go", true},
		{"src/**", "src", true},
		{"**/*.md", "docs/api/v2.md", true},
		{"**/*.md", "docs/api/v2.go", false},
		{"src/*.go", "src/*_test.go", true},
		{"src/a*.go", "src/b*.go", false},
		{"src/*.go", "src/*.md", false},
		{"docs/*", "src/*", false},
		{"a/?.txt", "a/b.txt", true},
		{"a/[ab].txt", "a/c.txt", false},
		{"a/**/z", "a/b/c/z", true},
		{"a/**/z", "a/b/c/y", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, store.Overlap(tt.a, tt.b), "%s ~ %s", tt.a, tt.b)
		assert.Equal(t, tt.want, store.Overlap(tt.b, tt.a), "%s ~ %s", tt.b, tt.a)
	}
}
