package natsstore

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// validName and validPrefix accept exactly what the patterns of the
// names and subject prefixes (docs/backends.md) do.
func TestValidNamesAreThePatterns(t *testing.T) {
	t.Parallel()
	name := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	prefix := regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
	candidates := []string{strings.Repeat("A", 64), strings.Repeat("A", 65), "mailbox.x", "a..b", ".a", "a.", "a\n"}
	level := []string{""}
	for range 4 {
		var next []string
		for _, p := range level {
			for _, c := range "aZ0_-. *>é" {
				next = append(next, p+string(c))
			}
		}
		candidates = append(candidates, next...)
		level = next
	}
	for _, s := range append(candidates, "") {
		assert.Equal(t, name.MatchString(s), validName(s), "name %q", s)
		assert.Equal(t, prefix.MatchString(s), validPrefix(s), "prefix %q", s)
	}
}
