package scripted

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrUnknownWork is returned by Work for a verb it does not know.
var ErrUnknownWork = errors.New("unknown work")

// verbCapability maps the verbs Work knows to the capability they need.
var verbCapability = map[string]string{
	"sort":      "sorting",
	"count":     "counting",
	"compute":   "arithmetic",
	"calculate": "arithmetic",
}

// CapabilityOf returns the capability the work's verb needs, and the verb.
func CapabilityOf(work string) (capability, verb string) {
	verb, _ = splitVerb(work)
	return verbCapability[verb], verb
}

// splitVerb returns the lower-cased first word and the rest.
func splitVerb(work string) (verb, rest string) {
	work = strings.TrimSpace(work)
	verb, rest, _ = strings.Cut(work, " ")
	return strings.ToLower(strings.TrimRight(verb, ":,")), strings.TrimSpace(rest)
}

// Work does the work described by text: "sort <items>" (numbers by value,
// otherwise words alphabetically), "count words in <text>" (the number of
// words), "compute <expr>" or "calculate <expr>" (+ - * / and parentheses).
// It fails on work it does not know and on bad input.
func Work(text string) (string, error) {
	verb, rest := splitVerb(strings.TrimRight(strings.TrimSpace(text), ".!?"))
	switch verb {
	case "sort":
		return sortItems(rest)
	case "count":
		return countWords(rest)
	case "compute", "calculate":
		return Calculate(rest)
	case "":
		return "", fmt.Errorf("%w: no work given", ErrUnknownWork)
	}
	return "", fmt.Errorf("%w: I do not know how to %s (I can sort, count words, and compute)", ErrUnknownWork, verb)
}

// sortItems sorts numbers by value, or else words alphabetically (ignoring
// case), and joins them with spaces.
func sortItems(s string) (string, error) {
	items := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	if len(items) == 0 {
		return "", errors.New("nothing to sort")
	}
	values := make([]float64, len(items))
	numeric := true
	for i, it := range items {
		v, err := strconv.ParseFloat(it, 64)
		if err != nil {
			numeric = false
			break
		}
		values[i] = v
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if numeric {
			switch {
			case values[a] < values[b]:
				return -1
			case values[a] > values[b]:
				return 1
			}
			return 0
		}
		if c := strings.Compare(strings.ToLower(items[a]), strings.ToLower(items[b])); c != 0 {
			return c
		}
		return strings.Compare(items[a], items[b])
	})
	out := make([]string, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return strings.Join(out, " "), nil
}

// countWords counts the words after "count words in" (or "count the
// words in", "count words of", "count words", "count").
func countWords(s string) (string, error) {
	words := strings.Fields(s)
	skip := func(w ...string) {
		if len(words) > 0 && slices.Contains(w, strings.ToLower(words[0])) {
			words = words[1:]
		}
	}
	skip("the")
	if len(words) > 0 && strings.EqualFold(words[0], "words") {
		words = words[1:]
		skip("in", "of")
	}
	words = strings.Fields(strings.Trim(strings.Join(words, " "), `"'`))
	if len(words) == 0 {
		return "", errors.New("no text to count the words of")
	}
	return strconv.Itoa(len(words)), nil
}
