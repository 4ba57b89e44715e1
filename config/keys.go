package config

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// camelKey returns the camelCase form of a snake_case key ("agent_id" →
// "agentId", "max_concurrent_tasks" → "maxConcurrentTasks"). Keys that are
// not lower-case snake_case ("agentId", "X-Api-Key", "_note") are returned
// unchanged, so names that are data rather than field names survive unless
// they look exactly like snake_case.
func camelKey(k string) string {
	if !isSnake(k) {
		return k
	}
	parts := strings.Split(k, "_")
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1:] {
		b.WriteString(strings.ToUpper(p[:1]))
		b.WriteString(p[1:])
	}
	return b.String()
}

// isSnake reports whether k is lower-case words joined by single
// underscores, starting with a letter and having at least one underscore.
func isSnake(k string) bool {
	if k == "" || k[0] < 'a' || k[0] > 'z' || !strings.Contains(k, "_") {
		return false
	}
	for _, part := range strings.Split(k, "_") {
		if part == "" {
			return false
		}
		for _, c := range []byte(part) {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// normalise returns a copy of the JSON value v with every object key in
// camelCase. When an object has a key in both spellings the camelCase one
// is kept and, when p is not nil, the duplicate is reported at its path.
func normalise(v any, path string, p *problems) any {
	switch v := v.(type) {
	case map[string]any:
		return normaliseMap(v, path, p)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalise(e, joinPath(path, "["+strconv.Itoa(i)+"]"), p)
		}
		return out
	}
	return v
}

func normaliseMap(m map[string]any, path string, p *problems) map[string]any {
	out := make(map[string]any, len(m))
	keys := slices.Sorted(maps.Keys(m))
	// Keys already in camelCase first, so they win over their snake_case twins.
	for _, k := range keys {
		if camelKey(k) == k {
			out[k] = normalise(m[k], joinPath(path, k), p)
		}
	}
	for _, k := range keys {
		ck := camelKey(k)
		if ck == k {
			continue
		}
		if _, dup := out[ck]; dup {
			if p != nil {
				p.at(joinPath(path, ck), ErrDuplicateKey, "set twice, as %q and %q", ck, k)
			}
			continue
		}
		out[ck] = normalise(m[k], joinPath(path, ck), p)
	}
	return out
}
