package fsstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// registryViews holds, for each store root of the process (shared by
// every Store opened on it), the registry as last read, so that
// heartbeats, which only look at it, read it once per change rather than
// once per beat of every agent.
var registryViews sync.Map // root → *registryView

// viewLookups is how many cards a view finds in the file's text (findEntry)
// before it parses the whole file: a process of one agent looks up one
// card per change of the file, which costs a search of the text instead
// of a parse of a thousand cards; a process of hundreds parses it once.
const viewLookups = 4

// registryView is _registry.json as last read, and the file it was.
type registryView struct {
	mu      sync.Mutex
	info    os.FileInfo                // nil: no file
	data    []byte                     // the file's content, until entries is parsed
	entries map[string]json.RawMessage // nil until parsed; read only
	lookups int                        // cards found in data since it was read
}

func (s *Store) registryView() *registryView {
	v, _ := registryViews.LoadOrStore(s.root, &registryView{})
	return v.(*registryView)
}

// refresh reads the file again when it was replaced (every writer renames
// a new file in) or changed since the view last read it. v.mu is held.
func (v *registryView) refresh(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		v.info, v.data, v.entries = nil, nil, map[string]json.RawMessage{}
		return nil
	case err != nil:
		return fmt.Errorf("read registry: %w", err)
	case v.info != nil && os.SameFile(v.info, fi) && v.info.Size() == fi.Size() &&
		v.info.ModTime().Equal(fi.ModTime()):
		return nil
	}
	snap, err := readRegistryFile(path)
	if err != nil {
		return err
	}
	v.info, v.data, v.entries, v.lookups = snap.info, snap.data, nil, 0
	return nil
}

// parsed returns the view's entries, parsing the file if it was not yet.
// v.mu is held.
func (v *registryView) parsed(path string) (map[string]json.RawMessage, error) {
	if v.entries != nil {
		return v.entries, nil
	}
	entries, err := parseRegistry(v.data)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w (the next card update repairs it)", path, err)
	}
	v.entries, v.data = entries, nil
	return entries, nil
}

// viewEntries returns the registry's entries, reading and parsing the file
// again only when it changed. The map must not be modified.
func (s *Store) viewEntries() (map[string]json.RawMessage, error) {
	view := s.registryView()
	view.mu.Lock()
	defer view.mu.Unlock()
	path := s.registryPath()
	if err := view.refresh(path); err != nil {
		return nil, err
	}
	return view.parsed(path)
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
	if view.entries == nil && view.lookups < viewLookups {
		if raw, ok := findEntry(view.data, agentID); ok {
			view.lookups++
			return raw, true, nil
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
// wrapping driver.ErrUnknownAgent.
func (s *Store) viewCard(agentID string) (envelope.Card, error) {
	raw, ok, err := s.viewEntry(agentID)
	if err != nil {
		return envelope.Card{}, err
	}
	if !ok {
		return envelope.Card{}, fmt.Errorf("card %q: %w", agentID, driver.ErrUnknownAgent)
	}
	card, err := decodeCard(agentID, raw)
	if err != nil {
		return envelope.Card{}, fmt.Errorf("%s: entry %q: %w", s.registryPath(), agentID, err)
	}
	return card, nil
}

// findEntry finds agentID's entry in data, a registry laid out with two
// spaces of indentation as switchboard and nanobot write it, without
// parsing the rest: there each key of the top-level object begins a line
// with exactly two spaces and a quote, which no deeper key does, and no
// string can (strings hold no line breaks). ok is false when data is not
// laid out so, the id is not plain ASCII (another writer may escape it),
// or the key is not there or there twice: the caller parses the whole
// file then.
func findEntry(data []byte, agentID string) (json.RawMessage, bool) {
	if !bytes.HasPrefix(data, []byte("{\n  \"")) {
		return nil, false
	}
	for i := 0; i < len(agentID); i++ {
		if agentID[i] >= 0x80 {
			return nil, false
		}
	}
	key := []byte("\n  \"" + agentID + "\": ")
	at := bytes.Index(data, key)
	if at < 0 {
		return nil, false
	}
	rest := data[at+len(key):]
	if bytes.Contains(rest, key) {
		return nil, false
	}
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(rest)).Decode(&raw); err != nil {
		return nil, false
	}
	return raw, true
}
