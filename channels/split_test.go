package channels_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		limit int
		want  []string
	}{
		{"empty", "", 10, nil},
		{"within the limit", "hello", 10, []string{"hello"}},
		{"exactly the limit", "0123456789", 10, []string{"0123456789"}},
		{"between paragraphs", "first para\n\nsecond para", 15, []string{"first para", "second para"}},
		{"paragraph preferred to a later line", "aaaaaaaa\n\nbbb\ncc", 15, []string{"aaaaaaaa", "bbb\ncc"}},
		{"between lines", "line one\nline two\nline three", 18, []string{"line one\nline two", "line three"}},
		{"between words", "one two three four", 9, []string{"one two", "three", "four"}},
		{"inside a word as a last resort", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"runes, not bytes", "日本語のテキスト", 3, []string{"日本語", "のテキ", "スト"}},
		{"emoji kept whole", "😀😀😀", 2, []string{"😀😀", "😀"}},
		{"an early break is not taken when a later one fits", "a b cccccccc dd", 12, []string{"a b cccccccc", "dd"}},
		{"limit below 1 is 1", "ab", 0, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := channels.Split(tt.text, tt.limit)
			assert.Equal(t, tt.want, got)
			for _, p := range got {
				assert.LessOrEqual(t, utf8.RuneCountInString(p), max(tt.limit, 1))
				assert.True(t, utf8.ValidString(p))
			}
		})
	}
}

// Nothing but the separators at the cuts is lost, whatever the text.
func TestSplitKeepsTheText(t *testing.T) {
	text := strings.Repeat("Lorem ipsum dolor sit amet, 混合 text.\nNext line here.\n\n", 200)
	parts := channels.Split(text, 100)
	assert.Greater(t, len(parts), 10)
	joined := strings.Join(parts, "")
	strip := func(s string) string { return strings.NewReplacer("\n", "", " ", "").Replace(s) }
	assert.Equal(t, strip(text), strip(joined))
	for _, p := range parts {
		assert.LessOrEqual(t, utf8.RuneCountInString(p), 100)
		assert.Greater(t, utf8.RuneCountInString(p), 50, "cuts fall late in a part: %q", p)
	}
}
