package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultPath returns the file Load reads when no path is given:
// ~/.nanobot/config.json with the home folder filled in, or the path
// with a literal "~" when the home folder is unknown (Load then reports that).
func DefaultPath() string {
	const p = "~/.nanobot/config.json"
	if expanded, err := ExpandHome(p); err == nil {
		return expanded
	}
	return p
}

// ExpandHome replaces a leading "~" or "~/" in p by the user's home folder.
// Other paths are returned unchanged. "~user/..." is not supported and is an
// error, as is a "~" path when the home folder is unknown.
func ExpandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		if strings.HasPrefix(p, "~") {
			return "", fmt.Errorf("expand %q: only \"~/\" is supported, not \"~user/\"", p)
		}
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expand %q: %w", p, err)
	}
	return filepath.Join(home, p[1:]), nil
}
