package store

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// validStateKey accepts exactly what the pattern of the state keys
// (docs/format.md) does.
func TestValidStateKeyIsThePattern(t *testing.T) {
	t.Parallel()
	pattern := regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	for _, key := range keyCandidates("abz09_-A.é/ ", 3) {
		assert.Equal(t, pattern.MatchString(key), validStateKey(key), "%q", key)
	}
	for _, key := range []string{strings.Repeat("a", 64), strings.Repeat("a", 65), "a" + strings.Repeat("-", 63), "tasks", "x\n"} {
		assert.Equal(t, pattern.MatchString(key), validStateKey(key), "%q", key)
	}
}

// keyCandidates returns every string of up to n of the bytes of alphabet.
func keyCandidates(alphabet string, n int) []string {
	out := []string{""}
	level := []string{""}
	for range n {
		var next []string
		for _, p := range level {
			for i := 0; i < len(alphabet); i++ {
				next = append(next, p+alphabet[i:i+1])
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}
