package fsstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// registryViews holds, for each store root of the process (shared by
// every Store opened on it), the registry as last read, so that
// heartbeats, which only look at it, read it once per change rather than
// once per beat of every agent.
var registryViews sync.Map // root → *registryView

// viewLookups is how many agents' cards a view finds in the file's text
// (findEntry) before it parses the whole file: a process of one agent
// looks up its card once per change of the file, which costs a search of
// the text instead of a parse of a thousand cards; a process of hundreds
// parses it once.
const viewLookups = 4

// registryView is _registry.json as last read, and the file it was.
type registryView struct {
	mu      sync.Mutex
	info    os.FileInfo                // nil: no file
	data    []byte                     // the file's content, until entries is parsed
	entries map[string]json.RawMessage // nil until parsed; read only
	found   map[string]json.RawMessage // cards found in the file, by agent, until entries is parsed
	cards   map[string]envelope.Card   // the cards viewCard decoded, by agent
	read    bool                       // data holds the file (else it is to be read)
	offsets map[string]int64           // where each agent's card began in the file last time
}

func (s *Store) registryView() *registryView {
	v, _ := registryViews.LoadOrStore(s.root, &registryView{})
	return v.(*registryView)
}

// refresh forgets what the view knows of the file when it was replaced
// (every writer renames a new file in) or changed since the view looked.
// The file is read when something is looked up. v.mu is held.
func (v *registryView) refresh(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		v.info, v.data, v.entries, v.found, v.cards, v.read = nil, nil, map[string]json.RawMessage{}, nil, nil, true
		return nil
	case err != nil:
		return fmt.Errorf("read registry: %w", err)
	case v.info != nil && os.SameFile(v.info, fi) && v.info.Size() == fi.Size() &&
		v.info.ModTime().Equal(fi.ModTime()):
		return nil
	}
	v.info, v.data, v.entries, v.found, v.cards, v.read = fi, nil, nil, nil, nil, false
	return nil
}

// readAll reads the whole file, if it was not yet. v.mu is held.
func (v *registryView) readAll(path string) error {
	if v.read {
		return nil
	}
	snap, err := readRegistryFile(path)
	if err != nil {
		return err
	}
	v.info, v.data, v.read = snap.info, snap.data, true
	return nil
}

// parsed returns the view's entries, parsing the file if it was not yet.
// v.mu is held.
func (v *registryView) parsed(path string) (map[string]json.RawMessage, error) {
	if v.entries != nil {
		return v.entries, nil
	}
	if err := v.readAll(path); err != nil {
		return nil, err
	}
	entries, err := parseRegistry(v.data)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w (the next card update repairs it)", path, err)
	}
	v.entries, v.data, v.found = entries, nil, nil
	return entries, nil
}

// viewEntry returns agentID's entry in the registry, reading the file
// again only when it changed, and finding the entry in its text while the
// view has not parsed it.
func (s *Store) viewEntry(agentID string) (json.RawMessage, bool, error) {
	view := s.registryView()
	view.mu.Lock()
	defer view.mu.Unlock()
	path := s.registryPath()
	if err := view.refresh(path); err != nil {
		return nil, false, err
	}
	if view.entries == nil {
		if raw, ok := view.found[agentID]; ok {
			return raw, true, nil
		}
		if len(view.found) < viewLookups {
			switch raw, found := view.lookup(path, agentID); found {
			case entryFound:
				if view.found == nil {
					view.found = map[string]json.RawMessage{}
				}
				view.found[agentID] = raw
				return raw, true, nil
			case entryAbsent:
				return nil, false, nil
			}
		}
	}
	entries, err := view.parsed(path)
	if err != nil {
		return nil, false, err
	}
	raw, ok := entries[agentID]
	return raw, ok, nil
}

// viewCard returns agentID's card as the registry holds it, or an error
// wrapping driver.ErrUnknownAgent. It decodes the card once per change of
// the file.
func (s *Store) viewCard(agentID string) (envelope.Card, error) {
	raw, ok, err := s.viewEntry(agentID)
	if err != nil {
		return envelope.Card{}, err
	}
	if !ok {
		return envelope.Card{}, fmt.Errorf("card %q: %w", agentID, driver.ErrUnknownAgent)
	}
	view := s.registryView()
	view.mu.Lock()
	card, cached := view.cards[agentID]
	view.mu.Unlock()
	if cached {
		return card, nil
	}
	if card, err = decodeCard(agentID, raw); err != nil {
		return envelope.Card{}, fmt.Errorf("%s: entry %q: %w", s.registryPath(), agentID, err)
	}
	view.mu.Lock()
	if view.found != nil && bytes.Equal(view.found[agentID], raw) {
		if view.cards == nil {
			view.cards = map[string]envelope.Card{}
		}
		view.cards[agentID] = card // still the file it was found in
	}
	view.mu.Unlock()
	return card, nil
}

// layoutPrefix begins a registry laid out with two spaces of indentation
// (as switchboard and nanobot write it), whose cards findEntry can find.
const layoutPrefix = "{\n  \""

// entryKey is how agentID's key begins its line in such a file; ok is
// false when the id is not plain ASCII (another writer may escape it).
func entryKey(agentID string) ([]byte, bool) {
	for i := 0; i < len(agentID); i++ {
		if agentID[i] >= 0x80 {
			return nil, false
		}
	}
	return []byte("\n  \"" + agentID + "\": "), true
}

// findEntry finds agentID's entry in data, a registry laid out with two
// spaces of indentation as switchboard and nanobot write it, without
// parsing the rest: there each key of the top-level object begins a line
// with exactly two spaces and a quote, which no deeper key does, and no
// string can (strings hold no line breaks). ok is false when the entry is
// not found so: the caller parses the whole file then (see lookupEntry
// for a caller that need not).
func findEntry(data []byte, agentID string) (json.RawMessage, bool) {
	raw, _, found := findEntryAt(data, agentID)
	return raw, found == entryFound
}

// entrySearch is what findEntryAt concluded.
type entrySearch int

const (
	entryUnknown entrySearch = iota // not laid out so, not ASCII, there twice, or not a value: parse
	entryFound
	entryAbsent // laid out so, and the key is not there
)

// findEntryAt is findEntry, which also returns where the entry's line
// begins, and tells a file that does not hold the entry (entryAbsent)
// from one it cannot tell about without parsing (entryUnknown).
func findEntryAt(data []byte, agentID string) (json.RawMessage, int, entrySearch) {
	key, ok := entryKey(agentID)
	if !ok || !bytes.HasPrefix(data, []byte(layoutPrefix)) {
		return nil, 0, entryUnknown
	}
	at := bytes.Index(data, key)
	if at < 0 {
		return nil, 0, entryAbsent
	}
	rest := data[at+len(key):]
	if bytes.Contains(rest, key) {
		return nil, 0, entryUnknown
	}
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(rest)).Decode(&raw); err != nil {
		return nil, 0, entryUnknown
	}
	return raw, at, entryFound
}

// renewHeartbeats sets in entries the later heartbeats of the agents'
// files and reports whether it changed any.
func (s *Store) renewHeartbeats(entries map[string]json.RawMessage) bool {
	changed := false
	for id, raw := range entries {
		if envelope.ValidateAgentID(id) != nil {
			continue
		}
		t, ok := s.readHeartbeat(id)
		if !ok {
			continue
		}
		if renewed, ok := setHeartbeat(raw, t); ok {
			entries[id], changed = renewed, true
		}
	}
	return changed
}

// setHeartbeat returns the card entry raw with last_heartbeat t, and true,
// if t is later than the heartbeat it holds. Its other keys keep their
// JSON as read.
func setHeartbeat(raw json.RawMessage, t time.Time) (json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return raw, false
	}
	var had envelope.Time
	if old, ok := fields["last_heartbeat"]; ok {
		_ = json.Unmarshal(old, &had) // unreadable: replaced
	}
	if !t.After(had.Time) {
		return raw, false
	}
	enc, err := json.Marshal(envelope.NewTime(t))
	if err != nil {
		return raw, false
	}
	fields["last_heartbeat"] = enc
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if e.Encode(fields) != nil {
		return raw, false
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), true
}
