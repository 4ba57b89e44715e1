package fsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// salvagedEntries is what a reader uses of a registry that does not parse:
// the entries that can still be read, and a card for each agent that has a
// heartbeat file and no entry left (what its running agent wrote last),
// so that a corrupt registry never hides the live agents: sends and
// listings go on, with a warning, until a writer (or doctor --fix)
// rewrites the file.
func (s *Store) salvagedEntries(data []byte, perr error) map[string]json.RawMessage {
	entries := salvageRegistry(data)
	for id, card := range s.heartbeatCards() {
		if _, ok := entries[id]; ok {
			continue
		}
		if raw, err := json.Marshal(card); err == nil {
			entries[id] = raw
		}
	}
	s.opts.Logger.Warn("mailbox registry is corrupt; using the cards that can be read and the agents' heartbeats (switchboard doctor --fix rewrites it)",
		"file", s.registryPath(), "err", perr, "cards", len(entries))
	return entries
}

// heartbeatCards returns a card for each agent with a heartbeat file: its
// id, the time of its last heartbeat, idle. The agent's next beat writes
// its whole card back.
func (s *Store) heartbeatCards() map[string]envelope.Card {
	out := map[string]envelope.Card{}
	ids, err := s.Agents()
	if err != nil {
		return out
	}
	for _, id := range ids {
		t, ok := s.readHeartbeat(id)
		if !ok {
			continue
		}
		hb := envelope.NewTime(t)
		out[id] = envelope.Card{AgentID: id, Status: envelope.StatusIdle, Capabilities: []string{},
			AllowFrom: []string{}, CurrentTasks: []string{}, RegisteredAt: hb, LastHeartbeat: hb}
	}
	return out
}

// RepairReport says what RepairRegistry did.
type RepairReport struct {
	// Copy is the copy of the corrupt file kept ("" when it was not
	// corrupt and nothing was done).
	Copy string
	// Salvaged are the agents whose entries could still be read; Rebuilt
	// those whose cards were made again from their heartbeat files.
	Salvaged, Rebuilt []string
}

// RepairRegistry rewrites a registry that does not parse, under the
// registry's lock: it keeps a copy of the corrupt file (as a writer
// would), and writes the entries that can still be read plus a card for
// each agent with a heartbeat file (the live agents, which write their
// whole card back at their next beat). A registry that parses is left as
// it is.
func (s *Store) RepairRegistry(ctx context.Context) (RepairReport, error) {
	var rep RepairReport
	if err := s.checkOpen(); err != nil {
		return rep, fmt.Errorf("repair registry: %w", err)
	}
	unlock, err := s.lockRegistry(ctx)
	if err != nil {
		return rep, fmt.Errorf("repair registry: %w", err)
	}
	defer unlock()
	path := s.registryPath()
	snap, err := readRegistryFile(path)
	if err != nil {
		return rep, fmt.Errorf("repair registry: %w", err)
	}
	if _, perr := parseRegistry(snap.data); perr == nil {
		return rep, nil
	}
	entries := salvageRegistry(snap.data)
	for id := range entries {
		rep.Salvaged = append(rep.Salvaged, id)
	}
	for id, card := range s.heartbeatCards() {
		if _, ok := entries[id]; ok {
			continue
		}
		raw, err := json.Marshal(card)
		if err != nil {
			return rep, err
		}
		entries[id] = raw
		rep.Rebuilt = append(rep.Rebuilt, id)
	}
	slices.Sort(rep.Salvaged)
	slices.Sort(rep.Rebuilt)
	if rep.Copy, err = backupCorruptRegistry(s.root, snap.data, s.opts.Now(), !s.opts.NoSync); err != nil {
		return rep, fmt.Errorf("repair registry: a copy of the corrupt file could not be saved, so it is kept as it is: %w", err)
	}
	if err := s.commitRegistry(path, entries, snap.info, false); err != nil && !errors.Is(err, errRegistryChanged) {
		return rep, fmt.Errorf("repair registry: %w", err)
	}
	return rep, nil
}

var _ driver.Registry = (*Store)(nil)
