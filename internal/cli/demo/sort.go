package demo

import (
	"cmp"
	"slices"
	"strings"
)

// sortLines orders transcript lines by time, then kind.
func sortLines(lines []demoLine) {
	slices.SortStableFunc(lines, func(a, b demoLine) int {
		return cmp.Or(a.at.Compare(b.at), strings.Compare(a.via, b.via))
	})
}
