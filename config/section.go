package config

import "strings"

// Section is one channel's raw config subtree plus its key path, e.g.
// "channels.mailbox". Its keys are camelCase already.
type Section struct {
	// Path is the section's key path, the prefix of its error messages.
	Path string
	// Raw is the section as read from the file and the environment:
	// JSON values, with environment values still strings.
	Raw map[string]any

	env    map[string]string // key path → the environment variable that set it
	report *Report           // records the section's keys when decoded (nil: nowhere)
}

// Enabled reports whether the section's "enabled" key is true: the JSON
// value true, or the string "true" (any case) as the environment gives it.
func (s Section) Enabled() bool {
	switch v := s.Raw["enabled"].(type) {
	case bool:
		return v
	case string:
		return strings.EqualFold(strings.TrimSpace(v), "true")
	}
	return false
}

// Decode decodes the section strictly into out, a non-nil pointer to a
// struct that already holds its defaults: keys missing from the section keep
// them. Errors are as for Decode, with key paths starting with s.Path. The
// section's keys and problems are recorded in the Report of the Config it
// came from.
func (s Section) Decode(out any) error {
	return decode(s.Raw, s.Path, out, s.env, s.report)
}

// Sub returns the subsection under key, for a part that decodes its own
// keys (a mailbox backend its channels.mailbox.<name> section). Its Raw
// is nil when the key is absent; ok is false when the key holds something
// other than an object.
func (s Section) Sub(key string) (sub Section, ok bool) {
	sub = Section{Path: s.Path + "." + key, env: s.env, report: s.report}
	v, found := s.Raw[key]
	if !found || v == nil {
		return sub, true
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		return sub, false
	}
	sub.Raw = m
	return sub, true
}

// Without returns s without the given keys, for a decoder that leaves them
// to the parts that own them.
func (s Section) Without(keys ...string) Section {
	raw := make(map[string]any, len(s.Raw))
	for k, v := range s.Raw {
		raw[k] = v
	}
	for _, k := range keys {
		delete(raw, k)
	}
	s.Raw = raw
	return s
}
