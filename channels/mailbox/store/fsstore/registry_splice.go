package fsstore

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sort"
)

// spliceRegistry returns the registry data with the entries of cards put
// in (replacing an agent's entry, or added at the end), every other entry
// kept as the bytes it was: a merge of a few cards into a registry of a
// thousand then costs one validating pass over the file instead of
// parsing every card and writing every card again (five times as long).
// ok is false when data is not a valid registry laid out with two spaces
// of indentation (see findEntryAt), an agent's key is there twice or is
// not plain ASCII, or a card is not JSON: the caller parses and encodes
// then, which also repairs a corrupt file. The cards are indented as
// encodeRegistry indents them.
func spliceRegistry(data []byte, cards map[string]json.RawMessage) ([]byte, bool) {
	body := bytes.TrimRight(data, " \t\r\n")
	if !bytes.HasPrefix(body, []byte(layoutPrefix)) || !bytes.HasSuffix(body, []byte("\n}")) || !json.Valid(body) {
		return nil, false
	}
	end := len(body) - len("\n}") // where new entries go
	keys, ok := topKeys(body)
	if !ok {
		return nil, false
	}
	type edit struct {
		from, to int // the bytes replaced: empty for an added entry
		text     []byte
	}
	var edits []edit
	size := len(body) + 2
	for _, agent := range slices.Sorted(maps.Keys(cards)) {
		key, ok := plainKey(agent)
		if !ok {
			return nil, false
		}
		var value bytes.Buffer
		value.Grow(len(cards[agent]) + len(cards[agent])/4)
		if json.Indent(&value, bytes.TrimSpace(cards[agent]), "  ", "  ") != nil {
			return nil, false
		}
		at, there := keys[agent]
		switch {
		case !there:
			text := append(append([]byte{','}, key...), value.Bytes()...)
			edits = append(edits, edit{end, end, text})
			size += len(text)
			continue
		case at < 0:
			return nil, false // there twice
		}
		from := at + len(key)
		dec := json.NewDecoder(bytes.NewReader(body[from:]))
		var old json.RawMessage
		if dec.Decode(&old) != nil {
			return nil, false
		}
		edits = append(edits, edit{from, from + int(dec.InputOffset()), value.Bytes()})
		size += value.Len()
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
	out := make([]byte, 0, size)
	last := 0
	for _, e := range edits {
		out = append(append(out, body[last:e.from]...), e.text...)
		last = e.to
	}
	out = append(append(out, body[last:]...), '\n')
	return out, true
}

// plainKey is entryKey for an id encodeRegistry writes as it is (printable
// ASCII without a quote or a backslash); ok is false for any other.
func plainKey(agentID string) ([]byte, bool) {
	for i := 0; i < len(agentID); i++ {
		if c := agentID[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return nil, false
		}
	}
	return entryKey(agentID)
}

// topKeys returns where each key of the registry's top-level object
// begins its line ("\n  \"key\": ", as entryKey spells it), -1 for a key
// that is there twice, in one pass over body (laid out with two spaces:
// no other line begins with two spaces and a quote). ok is false when a
// key holds an escape, which entryKey would not find.
func topKeys(body []byte) (map[string]int, bool) {
	keys := map[string]int{}
	for off := 0; ; {
		i := bytes.Index(body[off:], []byte("\n  \""))
		if i < 0 {
			return keys, true
		}
		at := off + i
		name := body[at+len("\n  \""):]
		q := bytes.IndexByte(name, '"')
		if q < 0 || bytes.IndexByte(name[:q], '\\') >= 0 || !bytes.HasPrefix(name[q:], []byte("\": ")) {
			return nil, false
		}
		k := string(name[:q])
		if _, twice := keys[k]; twice {
			keys[k] = -1
		} else {
			keys[k] = at
		}
		off = at + len("\n  \"") + q
	}
}
