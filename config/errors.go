package config

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Kinds of configuration problems; every *KeyError wraps one of them, so
// errors.Is(err, ErrUnknownKey) tells whether any key was unknown.
var (
	// ErrUnknownKey marks a key the target struct does not have, or an
	// environment variable whose name cannot be a key path.
	ErrUnknownKey = errors.New("unknown key")
	// ErrInvalidValue marks a value of the wrong type or out of range.
	ErrInvalidValue = errors.New("invalid value")
	// ErrDuplicateKey marks a key given twice in one source (as "agentId" and
	// "agent_id", or by two environment variables), or given both a value
	// and keys inside it.
	ErrDuplicateKey = errors.New("duplicate key")
)

// KeyError is one problem with one configuration key.
type KeyError struct {
	// Path is the key path, e.g. "channels.mailbox.maxConcurrentTasks"
	// ("" when the problem is with an environment variable's name).
	Path string
	// Source is the environment variable that set the key, "" for the file.
	Source string
	// Msg says what is wrong, e.g. `want a number, got "three"`.
	Msg string
	// Err is the kind of problem: ErrUnknownKey, ErrInvalidValue or
	// ErrDuplicateKey.
	Err error
}

// Error returns "[Source: ][Path: ]Msg".
func (e *KeyError) Error() string {
	var b strings.Builder
	for _, s := range []string{e.Source, e.Path} {
		if s != "" {
			b.WriteString(s)
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the kind of problem.
func (e *KeyError) Unwrap() error { return e.Err }

// problems collects the KeyErrors of one load or decode.
type problems struct {
	env  map[string]string // key path → environment variable that set it
	list []*KeyError
}

func (p *problems) add(e *KeyError) { p.list = append(p.list, e) }

// at adds a problem at path, naming the environment variable that set the
// value at path or at one of its parents.
func (p *problems) at(path string, kind error, format string, args ...any) {
	p.add(&KeyError{Path: path, Source: p.source(path), Msg: fmt.Sprintf(format, args...), Err: kind})
}

// has reports whether a problem was found at path already.
func (p *problems) has(path string) bool {
	for _, e := range p.list {
		if e.Path == path {
			return true
		}
	}
	return false
}

func (p *problems) invalid(path, format string, args ...any) {
	p.at(path, ErrInvalidValue, format, args...)
}

func (p *problems) unknown(path, key string, known []string) {
	if s, ok := closest(key, known); ok {
		p.at(path, ErrUnknownKey, "unknown key (did you mean %q?)", s)
		return
	}
	p.at(path, ErrUnknownKey, "unknown key")
}

// source returns the environment variable that set the value at path or
// at one of its parents, or else the first that set a key inside it (an
// unknown key that only the environment gave); "" when the file gave it.
func (p *problems) source(path string) string {
	for q := path; q != ""; q = parentPath(q) {
		if s, ok := p.env[q]; ok {
			return s
		}
	}
	for _, q := range slices.Sorted(maps.Keys(p.env)) {
		if strings.HasPrefix(q, path+".") || strings.HasPrefix(q, path+"[") {
			return p.env[q]
		}
	}
	return ""
}

// err returns the problems sorted by key path, joined; nil when there are none.
func (p *problems) err() error {
	slices.SortStableFunc(p.list, func(a, b *KeyError) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Source, b.Source), cmp.Compare(a.Msg, b.Msg))
	})
	errs := make([]error, len(p.list))
	for i, e := range p.list {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// joinPath appends key to the key path prefix.
func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	if key == "" {
		return prefix
	}
	if strings.HasPrefix(key, "[") {
		return prefix + key
	}
	return prefix + "." + key
}

// parentPath drops the last level of a key path: "a.b[0]" → "a.b" → "a" → "".
func parentPath(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}
