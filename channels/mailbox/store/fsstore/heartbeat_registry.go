package fsstore

import (
	"bytes"
	"context"
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
// every Store opened on it), the registry as last parsed, so that
// heartbeats, which only look at it, parse it once per change rather than
// once per beat of every agent.
var registryViews sync.Map // root → *registryView

// registryView is _registry.json as last parsed, and the file it was.
type registryView struct {
	mu      sync.Mutex
	info    os.FileInfo                // nil: no file
	entries map[string]json.RawMessage // read only
}

// viewEntries returns the registry's entries, parsing the file again only
// when it was replaced (every writer renames a new file in) or changed.
// The map must not be modified.
func (s *Store) viewEntries() (map[string]json.RawMessage, error) {
	v, _ := registryViews.LoadOrStore(s.root, &registryView{})
	view := v.(*registryView)
	view.mu.Lock()
	defer view.mu.Unlock()
	path := s.registryPath()
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		view.info, view.entries = nil, map[string]json.RawMessage{}
		return view.entries, nil
	case err != nil:
		return nil, fmt.Errorf("read registry: %w", err)
	case view.info != nil && os.SameFile(view.info, fi) && view.info.Size() == fi.Size() &&
		view.info.ModTime().Equal(fi.ModTime()):
		return view.entries, nil
	}
	snap, err := readRegistryFile(path)
	if err != nil {
		return nil, err
	}
	entries, err := parseRegistry(snap.data)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w (the next card update repairs it)", path, err)
	}
	view.info, view.entries = snap.info, entries
	return entries, nil
}

// viewCard returns agentID's card as the registry holds it, or an error
// wrapping driver.ErrUnknownAgent.
func (s *Store) viewCard(agentID string) (envelope.Card, error) {
	entries, err := s.viewEntries()
	if err != nil {
		return envelope.Card{}, err
	}
	raw, ok := entries[agentID]
	if !ok {
		return envelope.Card{}, fmt.Errorf("card %q: %w", agentID, driver.ErrUnknownAgent)
	}
	card, err := decodeCard(agentID, raw)
	if err != nil {
		return envelope.Card{}, fmt.Errorf("%s: entry %q: %w", s.registryPath(), agentID, err)
	}
	return card, nil
}

// renewRegistry rewrites _registry.json with each card's last_heartbeat
// renewed from its agent's heartbeat file where that is later, unless
// agentID's card there is no longer older than staleBefore (a writer
// renewed it meanwhile). Everything else in each entry is written back as
// it was read, and entries of agents without a heartbeat file, nanobot's,
// untouched.
func (s *Store) renewRegistry(ctx context.Context, agentID string, staleBefore time.Time) error {
	unlock, err := s.lockRegistry(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if card, err := s.viewCard(agentID); err == nil && !card.LastHeartbeat.Before(staleBefore) {
		return nil // renewed by the writer before us
	}
	path := s.registryPath()
	for attempt := 1; ; attempt++ {
		snap, entries, err := s.loadRegistryForUpdate(path)
		if err != nil {
			return err
		}
		if !s.renewHeartbeats(entries) {
			return nil
		}
		err = s.commitRegistry(path, entries, snap.info, attempt < registryAttempts)
		if !errors.Is(err, errRegistryChanged) {
			return err
		}
	}
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
