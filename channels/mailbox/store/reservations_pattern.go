package store

import (
	"fmt"
	"path"
	"strings"
)

// CleanPattern returns a reservation's path or glob in the one form
// reservations compare: '/' between its parts (a '\' becomes one), no
// "." or empty parts, no trailing '/'. A pattern that is empty, names
// the whole tree ("." or "/"), holds a NUL or a malformed [...] class is
// refused.
func CleanPattern(p string) (string, error) {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("reserve: the path %q is empty or holds a NUL", p)
	}
	clean := path.Clean(p)
	if clean == "." || clean == "/" || clean == "**" {
		return "", fmt.Errorf("reserve: %q names the whole workspace; name the files or folders (a folder's files: dir/**)", p)
	}
	for _, part := range strings.Split(clean, "/") {
		if _, err := path.Match(part, ""); err != nil {
			return "", fmt.Errorf("reserve: %q: %w", p, err)
		}
	}
	return clean, nil
}

// Overlap reports whether two reservation patterns (CleanPattern's form)
// may name a path in common: equal, one matching the other, or two globs
// whose parts may match the same names. It errs on the side of overlap
// for two globs it cannot tell apart.
func Overlap(a, b string) bool {
	return overlapParts(strings.Split(a, "/"), strings.Split(b, "/"))
}

func overlapParts(a, b []string) bool {
	switch {
	case len(a) == 0 && len(b) == 0:
		return true
	case len(a) > 0 && a[0] == "**":
		return overlapParts(a[1:], b) || len(b) > 0 && overlapParts(a, b[1:])
	case len(b) > 0 && b[0] == "**":
		return overlapParts(a, b[1:]) || len(a) > 0 && overlapParts(a[1:], b)
	case len(a) == 0 || len(b) == 0:
		return false
	}
	return overlapPart(a[0], b[0]) && overlapParts(a[1:], b[1:])
}

// overlapPart reports whether two parts of a path may match one name.
func overlapPart(a, b string) bool {
	ga, gb := isGlob(a), isGlob(b)
	switch {
	case !ga && !gb:
		return a == b
	case !gb:
		ok, _ := path.Match(a, b)
		return ok
	case !ga:
		ok, _ := path.Match(b, a)
		return ok
	}
	// Two globs: their fixed starts must agree, and so must their fixed
	// ends (when no class follows the last wildcard).
	pa, pb := literalPrefix(a), literalPrefix(b)
	if !strings.HasPrefix(pa, pb) && !strings.HasPrefix(pb, pa) {
		return false
	}
	sa, sb := literalSuffix(a), literalSuffix(b)
	return strings.HasSuffix(sa, sb) || strings.HasSuffix(sb, sa)
}

func isGlob(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// literalPrefix is what a glob part starts with before its first wildcard.
func literalPrefix(s string) string {
	if i := strings.IndexAny(s, `*?[\`); i >= 0 {
		return s[:i]
	}
	return s
}

// literalSuffix is what a glob part ends with after its last wildcard, or
// "" when that cannot be told simply (a class or an escape after it).
func literalSuffix(s string) string {
	i := strings.LastIndexAny(s, `*?]\`)
	if i < 0 {
		return s
	}
	if s[i] == ']' || s[i] == '\\' {
		return ""
	}
	return s[i+1:]
}
