package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/knadh/koanf/providers/env/v2"
)

// EnvPrefix starts the names of the environment variables that override
// the file.
const EnvPrefix = "NANOBOT_"

// envLevelSep separates the levels of a key path in a variable's name.
const envLevelSep = "__"

// envTree turns the NANOBOT_ variables of environ ("KEY=value" strings) into
// a tree of camelCase keys with string values, and returns it with the
// variable that set each key path. Variables with a single level
// (NANOBOT_HOME) are ignored; names that cannot be key paths, and two
// variables setting one key, are reported to p.
func envTree(environ []string, p *problems) (map[string]any, map[string]string) {
	tree := map[string]any{}
	origin := map[string]string{}
	if environ == nil {
		return tree, origin
	}
	// No delimiter: the provider's own unflattening depends on map order,
	// so the tree is built here, in order of name. Its Read never fails.
	vars, _ := env.Provider("", env.Opt{
		Prefix:      EnvPrefix,
		EnvironFunc: func() []string { return environ },
	}).Read()
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		levels := strings.Split(strings.TrimPrefix(name, EnvPrefix), envLevelSep)
		if len(levels) < 2 {
			continue
		}
		if len(levels) > MaxDepth {
			p.add(&KeyError{Source: name, Err: ErrUnknownKey,
				Msg: fmt.Sprintf("not a key path: %d levels, more than %d", len(levels), MaxDepth)})
			continue
		}
		keys := make([]string, len(levels))
		ok := true
		for i, l := range levels {
			keys[i] = camelKey(strings.ToLower(l))
			ok = ok && validEnvLevel(l)
		}
		if !ok {
			p.add(&KeyError{Source: name, Err: ErrUnknownKey,
				Msg: `not a key path: levels are separated by "__" and made of letters and digits joined by single "_"`})
			continue
		}
		value, _ := vars[name].(string)
		setEnv(tree, origin, keys, name, value, p)
	}
	return tree, origin
}

// setEnv sets the key path keys of tree to value and reports a conflict
// with a variable that set the same path (the first one stays), a parent of
// it, or a key inside it (the keys inside stay).
func setEnv(tree map[string]any, origin map[string]string, keys []string, name, value string, p *problems) {
	node, path := tree, ""
	for _, k := range keys[:len(keys)-1] {
		path = joinPath(path, k)
		switch next := node[k].(type) {
		case nil:
			m := map[string]any{}
			node[k] = m
			node = m
		case map[string]any:
			node = next
		default: // report, then let the keys inside win so only this is reported
			p.add(envConflict(path, origin[path], name))
			delete(origin, path)
			m := map[string]any{}
			node[k] = m
			node = m
		}
	}
	last := keys[len(keys)-1]
	path = joinPath(path, last)
	switch node[last].(type) {
	case nil:
		node[last] = value
		origin[path] = name
	case map[string]any:
		p.add(envConflict(path, name, inside(origin, path)))
	default:
		p.add(&KeyError{Path: path, Err: ErrDuplicateKey,
			Msg: "set by both " + origin[path] + " and " + name})
	}
}

func envConflict(path, valueVar, sectionVar string) *KeyError {
	return &KeyError{Path: path, Err: ErrDuplicateKey,
		Msg: valueVar + " sets a value here and " + sectionVar + " sets a key inside it"}
}

// inside returns the first variable, by key path, that set a key below path.
func inside(origin map[string]string, path string) string {
	for _, q := range slices.Sorted(maps.Keys(origin)) {
		if strings.HasPrefix(q, path+".") {
			return origin[q]
		}
	}
	return ""
}

// validEnvLevel reports whether l is letters and digits joined by single
// underscores ("AGENT_ID", "MAILBOX").
func validEnvLevel(l string) bool {
	for _, w := range strings.Split(l, "_") {
		if w == "" {
			return false
		}
		for _, c := range []byte(w) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				return false
			}
		}
	}
	return true
}
