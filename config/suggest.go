package config

import (
	"strings"
	"unicode/utf8"
)

// closest returns the candidate nearest to key by edit distance, ignoring
// case, when it is close enough to be the likely meaning: at most one edit
// per three characters of key (at least one edit). Ties go to the candidate
// that sorts first.
func closest(key string, candidates []string) (string, bool) {
	limit := max(1, utf8.RuneCountInString(key)/3)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(key), strings.ToLower(c))
		if d < bestDist || d == bestDist && c < best {
			best, bestDist = c, d
		}
	}
	return best, bestDist <= limit
}

// editDistance is the optimal string alignment distance between a and b:
// the fewest insertions, deletions, substitutions and swaps of two adjacent
// runes that turn a into b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// rows i-2, i-1 and i of the distance table.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
