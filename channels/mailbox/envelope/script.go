package envelope

import (
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// scriptNames returns the names of unicode.Scripts, sorted, but Common
// and Inherited (digits, punctuation and combining marks that go with any
// script): the scripts an agent id's letters may come from. It is made on
// first use, so that a program pays nothing for it at start.
var scriptNames = sync.OnceValue(func() []string {
	names := make([]string, 0, len(unicode.Scripts))
	for name := range unicode.Scripts {
		if name != "Common" && name != "Inherited" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
})

// scriptOf returns the script of r ("" for Common and Inherited ones).
func scriptOf(r rune) string {
	switch {
	case r < utf8.RuneSelf:
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return "Latin"
		}
		return ""
	}
	for _, name := range scriptNames() {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return ""
}

// Sets of scripts written together, that an id may mix (see mixedScripts).
const (
	japanese uint8 = 1 << iota // Han, Hiragana, Katakana
	chinese                    // Han, Bopomofo
	korean                     // Han, Hangul
)

// mixable returns the sets a script belongs to, with Latin (Unicode's
// "highly restrictive" identifiers, UTS #39 section 5.2); a script not
// named here mixes with none.
func mixable(script string) uint8 {
	switch script {
	case "Latin", "Han":
		return japanese | chinese | korean
	case "Hiragana", "Katakana":
		return japanese
	case "Bopomofo":
		return chinese
	case "Hangul":
		return korean
	}
	return 0
}

// mixedScripts returns two scripts whose letters id mixes, or "", "" when
// it does not: a Cyrillic "с" in "сeo" makes an id that looks like "ceo"
// and is not. An id's letters are of one script, or of Latin and the
// scripts written together in Japanese (Han, Hiragana, Katakana), Chinese
// (Han, Bopomofo) or Korean (Han, Hangul). ASCII digits, '-', '_' and '.'
// go with any script.
func mixedScripts(id string) (a, b string) {
	if isASCII(id) { // Latin letters only: the common case, without a lookup
		return "", ""
	}
	var seen []string
	for _, r := range id {
		if s := scriptOf(r); s != "" && !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	for i, x := range seen {
		for _, y := range seen[i+1:] {
			if mixable(x)&mixable(y) == 0 {
				return x, y
			}
		}
	}
	return "", ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
