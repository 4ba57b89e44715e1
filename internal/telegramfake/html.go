package telegramfake

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Entity is a message entity: a formatted span of a message's text, its
// offset and length in UTF-16 code units, as Telegram counts them.
type Entity struct {
	Type     string `json:"type"` // bold, italic, underline, strikethrough, spoiler, text_link, code, pre, blockquote, ...
	Offset   int    `json:"offset"`
	Length   int    `json:"length"`
	URL      string `json:"url,omitempty"`      // text_link
	Language string `json:"language,omitempty"` // pre
}

// htmlTags maps the tags Telegram's HTML parse mode supports to the
// entity each makes.
var htmlTags = map[string]string{
	"b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline", "ins": "underline",
	"s": "strikethrough", "strike": "strikethrough", "del": "strikethrough", "span": "spoiler",
	"tg-spoiler": "spoiler", "a": "text_link", "code": "code", "pre": "pre", "blockquote": "blockquote",
	"tg-emoji": "custom_emoji",
}

// ParseHTML parses text in Telegram's HTML parse mode as Telegram does:
// it returns the text shown and its entities, or the error Telegram gives
// for markup it refuses ("can't parse entities: ..."): a tag it does not
// support, a tag not closed or closed out of order, a "<" that starts no
// tag, an <a> without href, a <span> that is not a spoiler. The named
// entities &lt; &gt; &amp; &quot; and numeric ones are decoded; an "&"
// that starts none of them stays as it is, as Telegram keeps it.
func ParseHTML(text string) (string, []Entity, error) {
	type open struct {
		name string
		ent  Entity
	}
	var out []uint16
	var stack []open
	var ents []Entity
	fail := func(format string, args ...any) (string, []Entity, error) {
		return "", nil, fmt.Errorf("can't parse entities: "+format, args...)
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '<' && strings.HasPrefix(text[i:], "</"):
			end := strings.IndexByte(text[i:], '>')
			if end < 0 {
				return fail("can't find end of the tag at byte offset %d", i)
			}
			name := strings.ToLower(strings.TrimSpace(text[i+2 : i+end]))
			if len(stack) == 0 {
				return fail("unexpected end tag at byte offset %d", i)
			}
			top := stack[len(stack)-1]
			if top.name != name {
				return fail("unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", i, top.name, name)
			}
			stack = stack[:len(stack)-1]
			top.ent.Length = len(out) - top.ent.Offset
			if top.name == "code" && len(stack) > 0 && stack[len(stack)-1].name == "pre" && top.ent.Language != "" {
				stack[len(stack)-1].ent.Language = top.ent.Language // <pre><code class="language-x">
			} else if top.ent.Length > 0 {
				ents = append(ents, top.ent)
			}
			i += end + 1
		case c == '<':
			name, attrs, n, err := parseStartTag(text[i:])
			if err != nil {
				return fail("%v at byte offset %d", err, i)
			}
			typ, ok := htmlTags[name]
			if !ok {
				return fail("unsupported start tag %q at byte offset %d", name, i)
			}
			ent := Entity{Type: typ, Offset: len(out)}
			switch name {
			case "a":
				if attrs["href"] == "" {
					return fail("the <a> tag at byte offset %d has no href", i)
				}
				ent.URL = attrs["href"]
			case "span":
				if attrs["class"] != "tg-spoiler" {
					return fail("tag \"span\" must have class \"tg-spoiler\" at byte offset %d", i)
				}
			case "code":
				ent.Language = strings.TrimPrefix(attrs["class"], "language-")
			case "blockquote":
				if _, ok := attrs["expandable"]; ok {
					ent.Type = "expandable_blockquote"
				}
			}
			stack = append(stack, open{name: name, ent: ent})
			i += n
		case c == '&':
			r, n := htmlEntity(text[i:])
			out = utf16.AppendRune(out, r)
			i += n
		default:
			r, n := utf8.DecodeRuneInString(text[i:])
			out = utf16.AppendRune(out, r)
			i += n
		}
	}
	if len(stack) > 0 {
		return fail("can't find end tag corresponding to start tag %q", stack[len(stack)-1].name)
	}
	return string(utf16.Decode(out)), ents, nil
}

// parseStartTag reads the start tag at the start of s: its lower-case
// name, its attributes, and its length in bytes.
func parseStartTag(s string) (name string, attrs map[string]string, n int, err error) {
	i := 1
	for i < len(s) && (isLetter(s[i]) || s[i] == '-' || (i > 1 && s[i] >= '0' && s[i] <= '9')) {
		i++
	}
	name = strings.ToLower(s[1:i])
	if name == "" {
		return "", nil, 0, fmt.Errorf("unsupported start tag \"\"")
	}
	attrs = map[string]string{}
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++
		}
		if i >= len(s) {
			return "", nil, 0, fmt.Errorf("can't find end of the tag %q", name)
		}
		if s[i] == '>' {
			return name, attrs, i + 1, nil
		}
		start := i
		for i < len(s) && (isLetter(s[i]) || s[i] == '-') {
			i++
		}
		key := strings.ToLower(s[start:i])
		if key == "" {
			return "", nil, 0, fmt.Errorf("empty attribute name in the tag %q", name)
		}
		if i >= len(s) || s[i] != '=' {
			attrs[key] = ""
			continue
		}
		i++
		if i >= len(s) {
			return "", nil, 0, fmt.Errorf("can't find end of the tag %q", name)
		}
		var val string
		if q := s[i]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[i+1:], q)
			if end < 0 {
				return "", nil, 0, fmt.Errorf("unclosed value of the attribute %q", key)
			}
			val = s[i+1 : i+1+end]
			i += end + 2
		} else {
			start := i
			for i < len(s) && s[i] != ' ' && s[i] != '>' {
				i++
			}
			val = s[start:i]
		}
		decoded, _, err := ParseHTML(val)
		if err != nil || strings.ContainsAny(val, "<>") {
			return "", nil, 0, fmt.Errorf("bad value of the attribute %q", key)
		}
		attrs[key] = decoded
	}
}

// htmlEntity decodes the entity at the start of s ("&lt;", "&#60;",
// "&#x3c;"); an "&" that starts none is itself.
func htmlEntity(s string) (r rune, n int) {
	end := strings.IndexByte(s, ';')
	if end < 2 || end > 10 {
		return '&', 1
	}
	name := s[1:end]
	switch name {
	case "lt":
		return '<', end + 1
	case "gt":
		return '>', end + 1
	case "amp":
		return '&', end + 1
	case "quot":
		return '"', end + 1
	}
	if num, ok := strings.CutPrefix(name, "#"); ok {
		base := 10
		if hex, ok := strings.CutPrefix(strings.ToLower(num), "x"); ok {
			num, base = hex, 16
		}
		v, err := strconv.ParseUint(num, base, 32)
		if err == nil && utf8.ValidRune(rune(v)) && v != 0 {
			return rune(v), end + 1
		}
	}
	return '&', 1
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// utf16Len returns the length of s in UTF-16 code units, as Telegram
// measures a message.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
