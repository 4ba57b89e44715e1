package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// NoticePlaceholders are the names a notice template may hold, in braces:
// {agent} (the agent the work went to), {task_id}, {task} (the work
// asked for), {text} (what the update says), {reason} (why, when it
// says) and {event} (what happened: delegated, accepted, working, ...).
var NoticePlaceholders = []string{"agent", "task_id", "task", "text", "reason", "event"}

// NoticeTemplate is the words of a notice (agents.defaults.notices): text
// with placeholders in braces ("{agent} accepted the task."), and
// optional parts in square brackets, kept only when every placeholder in
// them has a value: "[: {text}]" says ": half way" after a text and
// nothing without one; "[A|B]" says B when A cannot be said
// ("{agent} is working on it[: {text}|.]"). Parse one with
// ParseNoticeTemplate.
type NoticeTemplate struct{ parts []noticePart }

// noticePart is a literal (name and alt empty), a placeholder (name), or
// an optional part (opt, with the parts of its alternative in alt).
type noticePart struct {
	literal  string
	name     string
	opt, alt []noticePart
	optional bool
}

// ParseNoticeTemplate reads a notice template. An unknown placeholder, a
// brace or bracket left open, or brackets inside brackets are errors.
func ParseNoticeTemplate(s string) (NoticeTemplate, error) {
	var top []noticePart
	for s != "" {
		i := strings.IndexAny(s, "[]")
		if i < 0 {
			parts, err := parseNoticeText(s)
			return NoticeTemplate{append(top, parts...)}, err
		}
		if s[i] == ']' {
			return NoticeTemplate{}, errors.New("a ']' without its '['")
		}
		parts, err := parseNoticeText(s[:i])
		if err != nil {
			return NoticeTemplate{}, err
		}
		top = append(top, parts...)
		end := strings.IndexAny(s[i+1:], "[]")
		if end < 0 || s[i+1+end] == '[' {
			return NoticeTemplate{}, errors.New("a '[' without its ']' (optional parts do not nest)")
		}
		body := s[i+1 : i+1+end]
		first, second, hasAlt := strings.Cut(body, "|")
		opt, err := parseNoticeText(first)
		if err != nil {
			return NoticeTemplate{}, err
		}
		part := noticePart{optional: true, opt: opt}
		if hasAlt {
			if part.alt, err = parseNoticeText(second); err != nil {
				return NoticeTemplate{}, err
			}
		}
		top = append(top, part)
		s = s[i+1+end+1:]
	}
	return NoticeTemplate{top}, nil
}

// parseNoticeText reads text without brackets: literals and placeholders.
func parseNoticeText(s string) ([]noticePart, error) {
	var parts []noticePart
	for s != "" {
		open := strings.IndexAny(s, "{}")
		if open < 0 {
			return append(parts, noticePart{literal: s}), nil
		}
		if s[open] == '}' {
			return nil, errors.New("a '}' without its '{'")
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			return nil, errors.New("a '{' without its '}'")
		}
		name := s[open+1 : open+end]
		if !slices.Contains(NoticePlaceholders, name) {
			return nil, fmt.Errorf("unknown placeholder {%s}: want one of %s", name, strings.Join(NoticePlaceholders, ", "))
		}
		if open > 0 {
			parts = append(parts, noticePart{literal: s[:open]})
		}
		parts = append(parts, noticePart{name: name})
		s = s[open+end+1:]
	}
	return parts, nil
}

// Render says the template with the placeholders' values (by name; a
// name without a value is empty).
func (t NoticeTemplate) Render(values map[string]string) string {
	var b strings.Builder
	renderNotice(&b, t.parts, values)
	return b.String()
}

func renderNotice(b *strings.Builder, parts []noticePart, values map[string]string) {
	for _, p := range parts {
		switch {
		case p.optional && filled(p.opt, values):
			renderNotice(b, p.opt, values)
		case p.optional:
			renderNotice(b, p.alt, values)
		case p.name != "":
			b.WriteString(values[p.name])
		default:
			b.WriteString(p.literal)
		}
	}
}

// filled reports whether every placeholder of parts has a value.
func filled(parts []noticePart, values map[string]string) bool {
	for _, p := range parts {
		if p.name != "" && values[p.name] == "" {
			return false
		}
	}
	return true
}
