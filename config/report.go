package config

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"sync"
)

// Status says what became of one key path of the configuration.
type Status int

// The statuses of a key path.
const (
	// Used: switchboard decodes the key.
	Used Status = iota + 1
	// Ignored: switchboard does not use the key and accepts it; Entry.Reason
	// says why.
	Ignored
	// Invalid: the key is unknown or its value is bad; Entry.Err says what.
	Invalid
)

// String returns "used", "ignored" or "error".
func (s Status) String() string {
	switch s {
	case Used:
		return "used"
	case Ignored:
		return "ignored"
	case Invalid:
		return "error"
	}
	return "unknown"
}

// Why a key is ignored (Entry.Reason).
const (
	// ReasonNanobotKey: nanobot's schema has the key, switchboard has no
	// use for it.
	ReasonNanobotKey = "nanobot key switchboard does not use"
	// ReasonChannelType: a channel section whose type this build has no
	// channel for.
	ReasonChannelType = "channel type not in this build"
)

// Entry is one key path and what became of it.
type Entry struct {
	// Path is the key path, "agents.defaults.model" ("" for an environment
	// variable whose name is not a key path).
	Path string
	// Status is used, ignored or invalid.
	Status Status
	// Reason says why an ignored key is ignored.
	Reason string
	// Err is what is wrong with an invalid key.
	Err *KeyError
}

// Report records what a configuration's loading and decoding made of each
// key path. Load fills in the sections it decodes; each channel section adds
// its own keys when it is decoded (Section.Decode) or skipped
// (Section.Ignore). It is safe for concurrent use; the nil *Report records
// nothing and reports nothing.
type Report struct {
	mu      sync.Mutex
	entries []Entry
	seen    map[entryKey]bool
}

// add records e once: a section decoded twice adds its keys once.
func (r *Report) add(e Entry) {
	if r == nil {
		return
	}
	key := entryKey{path: e.Path, status: e.Status, reason: e.Reason}
	if e.Err != nil {
		key.reason = e.Err.Error()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[key] {
		return
	}
	if r.seen == nil {
		r.seen = map[entryKey]bool{}
	}
	r.seen[key] = true
	r.entries = append(r.entries, e)
}

// entryKey identifies an entry for add.
type entryKey struct {
	path   string
	status Status
	reason string
}

// Entries returns every entry recorded, sorted by key path.
func (r *Report) Entries() []Entry {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	out := slices.Clone(r.entries)
	r.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Status, b.Status))
	})
	return out
}

// Ignored returns the key paths ignored for reason, sorted.
func (r *Report) Ignored(reason string) []string {
	var paths []string
	for _, e := range r.Entries() {
		if e.Status == Ignored && e.Reason == reason {
			paths = append(paths, e.Path)
		}
	}
	return paths
}

// Err returns the problems recorded, joined and sorted by key path, each a
// *KeyError; nil when there are none. After a Load with LoadOptions.Lenient
// they are the problems of the lenient sections.
func (r *Report) Err() error {
	var errs []error
	for _, e := range r.Entries() {
		if e.Status == Invalid {
			errs = append(errs, e.Err)
		}
	}
	return errors.Join(errs...)
}

// invalid records each problem of p as an Invalid entry.
func (r *Report) invalid(list []*KeyError) {
	for _, e := range list {
		r.add(Entry{Path: e.Path, Status: Invalid, Err: e})
	}
}

// Invalid records err, found at path or below it, as problems (see
// Section.Invalid): a problem that Load cannot see, such as a provider
// that cannot be built from its settings.
func (r *Report) Invalid(path string, err error) {
	if err != nil {
		r.invalid(keyErrors(path, err))
	}
}

// keyErrors splits err (maybe joined) into KeyErrors: a *KeyError stays
// as it is; another error whose text starts with a key path and ": "
// (as a channel's Validate writes them) is at that path; any other is at
// path.
func keyErrors(path string, err error) []*KeyError {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*KeyError
		for _, e := range joined.Unwrap() {
			out = append(out, keyErrors(path, e)...)
		}
		return out
	}
	var ke *KeyError
	if errors.As(err, &ke) {
		return []*KeyError{ke}
	}
	msg := err.Error()
	if at, rest, ok := strings.Cut(msg, ": "); ok && at != "" && !strings.ContainsAny(at, " \t\n\"") &&
		(at == path || strings.HasPrefix(at, path+".") || strings.HasPrefix(at, path+"[")) {
		return []*KeyError{{Path: at, Msg: rest, Err: ErrInvalidValue}}
	}
	return []*KeyError{{Path: path, Msg: msg, Err: ErrInvalidValue}}
}
