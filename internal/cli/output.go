package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// row writes one table row. Every cell is escaped (safeText), so no text
// from the tree can break the row or reach the terminal as a control
// sequence; a painted cell was escaped when it was painted.
func row(w io.Writer, cells ...any) {
	out := make([]string, len(cells))
	for i, c := range cells {
		switch c := c.(type) {
		case painted:
			out[i] = string(c)
		case string:
			out[i] = safeText(c)
		default:
			out[i] = safeText(fmt.Sprint(c))
		}
	}
	fmt.Fprintln(w, strings.Join(out, "\t"))
}

// painted is a table cell already escaped and wrapped in colour codes.
type painted string

// palette colours table cells when stdout is a terminal and NO_COLOR is
// unset. Every code has the same length, so that tabwriter, which counts
// the escape bytes, still aligns a column whose cells are all painted.
type palette struct{ on bool }

// ANSI foreground colours (two digits each, see palette).
const (
	colorRed     = "31"
	colorGreen   = "32"
	colorYellow  = "33"
	colorGrey    = "90"
	colorDefault = "39"
)

// newPalette decides whether to colour output written to w.
func newPalette(w io.Writer, environ []string) palette {
	for _, kv := range environ {
		if name, _, _ := strings.Cut(kv, "="); name == "NO_COLOR" {
			return palette{}
		}
	}
	f, ok := w.(*os.File)
	if !ok {
		return palette{}
	}
	fi, err := f.Stat()
	return palette{on: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

// paint escapes s (safeText) and wraps it in colour code (colorDefault for
// a plain cell of a painted column): the palette's codes are the only
// escape sequences a table holds.
func (p palette) paint(code, s string) painted {
	s = safeText(s)
	if !p.on {
		return painted(s)
	}
	return painted("\x1b[" + code + "m" + s + "\x1b[0m")
}

// ago says how long before now t was: "3s ago", "5m ago", "2h ago",
// "4d ago", "in 2m" for a time ahead, "never" for the zero time.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	if d < 0 {
		return "in " + shortDuration(-d)
	}
	if d < time.Second {
		return "just now"
	}
	return shortDuration(d) + " ago"
}

// shortDuration rounds d down to its largest unit: 42s, 5m, 3h, 12d.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// clip shortens s to at most n runes, ending it with "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// tilde shortens a path under the home folder to "~/...", for messages.
func tilde(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if rel, err := filepath.Rel(home, path); err == nil && filepath.IsLocal(rel) {
		return filepath.Join("~", rel)
	}
	return path
}

// orDash returns s, or "-" for an empty cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// list joins items with commas, "-" when there are none.
func list(items []string) string {
	return orDash(strings.Join(items, ","))
}
