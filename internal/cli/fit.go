package cli

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
)

// fitTable is a table (see table) that fits the terminal: when its rows
// are wider than max columns, the widest columns are shortened, their
// cells cut with "…", until it fits (or every shortenable column is at
// minCell). Columns holding painted cells keep their width. max 0 fits
// nothing: pipes and --wide get every cell whole.
type fitTable struct {
	out  io.Writer
	max  int
	rows [][]string
	part []byte // a line not ended yet
}

// minCell is the narrowest a column is shortened to.
const minCell = 8

// tableGap is the space between two columns.
const tableGap = 2

// table returns the table of a human listing on stdout, fitted to the
// terminal's width (see termWidth).
func (a *app) table() *fitTable {
	return &fitTable{out: a.env.Stdout, max: a.termWidth()}
}

// termWidth is the width human tables fit: 0 (no limit) with --wide, else
// $COLUMNS when set, else the terminal's width when stdout is one, else 0.
func (a *app) termWidth() int {
	if a.wide {
		return 0
	}
	for _, kv := range a.env.Environ {
		if name, v, _ := strings.Cut(kv, "="); name == "COLUMNS" {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return n
			}
		}
	}
	if f, ok := a.env.Stdout.(*os.File); ok {
		return terminalWidth(f)
	}
	return 0
}

// Write takes rows as row writes them: cells separated by tabs, a row per
// line.
func (t *fitTable) Write(p []byte) (int, error) {
	t.part = append(t.part, p...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		t.rows = append(t.rows, strings.Split(string(t.part[:i]), "\t"))
		t.part = t.part[i+1:]
	}
}

// Flush writes the rows, aligned and fitted.
func (t *fitTable) Flush() error {
	widths, fixed := t.columns()
	t.fit(widths, fixed)
	var b strings.Builder
	for _, r := range t.rows {
		var line strings.Builder
		for i, c := range r {
			c = cut(c, widths[i])
			line.WriteString(c)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-cellWidth(c)+tableGap))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ")) // no padding after the last cell
		b.WriteByte('\n')
	}
	t.rows = nil
	_, err := io.WriteString(t.out, b.String())
	return err
}

// columns returns each column's widest cell and whether it holds painted
// (colour-coded) cells, which are never cut.
func (t *fitTable) columns() (widths []int, fixed []bool) {
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths, fixed = append(widths, 0), append(fixed, false)
			}
			widths[i] = max(widths[i], cellWidth(c))
			fixed[i] = fixed[i] || strings.Contains(c, "\x1b[")
		}
	}
	return widths, fixed
}

// fit shortens the widest shortenable column, one column at a time, until
// the table is at most t.max wide.
func (t *fitTable) fit(widths []int, fixed []bool) {
	if t.max <= 0 || len(widths) == 0 {
		return
	}
	total := tableGap * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	for total > t.max {
		widest := -1
		for i, w := range widths {
			if !fixed[i] && w > minCell && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return // as narrow as it gets
		}
		cutBy := min(total-t.max, widths[widest]-minCell)
		if second := secondWidest(widths, fixed, widest); second > minCell && widths[widest]-cutBy < second {
			cutBy = max(1, widths[widest]-second) // share the cuts among the wide columns
		}
		widths[widest] -= cutBy
		total -= cutBy
	}
}

// secondWidest is the width of the widest shortenable column but skip.
func secondWidest(widths []int, fixed []bool, skip int) int {
	best := 0
	for i, w := range widths {
		if i != skip && !fixed[i] {
			best = max(best, w)
		}
	}
	return best
}

// cut shortens cell c to width w, ending it with "…" when cut. A painted
// cell is never cut.
func cut(c string, w int) string {
	if strings.Contains(c, "\x1b[") {
		return c
	}
	return runewidth.Truncate(c, w, "…")
}

// cellWidth is how many terminal columns c takes (runewidth.StringWidth:
// wide East Asian runes and emoji two, combining marks none), colour
// codes none.
func cellWidth(c string) int {
	n := 0
	for {
		i := strings.IndexByte(c, '\x1b')
		if i < 0 {
			return n + runewidth.StringWidth(c)
		}
		n += runewidth.StringWidth(c[:i])
		j := strings.IndexByte(c[i:], 'm')
		if j < 0 {
			return n + runewidth.StringWidth(c[i:])
		}
		c = c[i+j+1:]
	}
}
