package fsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// registryAttempts bounds how often UpdateCard rewrites its update when a
// writer that takes no lock (nanobot) replaces the registry meanwhile;
// the last attempt writes regardless.
const registryAttempts = 4

var _ driver.Registry = (*Store)(nil)

// UpdateCard implements driver.Registry on nanobot's _registry.json.
//
// Under an exclusive flock on _registry.lock it reads the registry, applies
// update to agentID's card (a zero card with AgentID set if there is none)
// and renames a new file over the old one, so readers, which take no lock,
// see the old or the new file and never a torn one. Every other entry,
// nanobot's cards and keys switchboard does not know, is written back as
// the JSON it was read as. update runs once, under the lock; it must not
// call the registry.
//
// The card is written in the types nanobot reads: AgentID is agentID,
// capabilities, allow_from and current_tasks are lists ([] when empty), an
// empty status is idle or busy as current_tasks say (any other status than
// idle, busy and offline is an error), a zero registered_at is now and a
// zero last_heartbeat is registered_at. The card returned is the card as
// written.
//
// nanobot's writer does not take the lock. An update that finds the file
// replaced between its read and its rename starts over from the new file,
// which narrows, but cannot close, the window in which one of the two
// writers loses the other's change. A corrupt registry is kept as
// _registry.json.corrupt-<unix> and rewritten from the entries that can
// still be read, with a warning.
func (s *Store) UpdateCard(ctx context.Context, agentID string, update func(*envelope.Card)) (envelope.Card, error) {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return envelope.Card{}, fmt.Errorf("update card: %w", err)
	}
	if update == nil {
		return envelope.Card{}, fmt.Errorf("update card %q: update function is nil", agentID)
	}
	if err := s.checkOpen(); err != nil {
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	if err := ctx.Err(); err != nil {
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	unlock, err := s.lockRegistry(ctx)
	if err != nil {
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	defer unlock()

	path := s.registryPath()
	snap, entries, err := s.loadRegistryForUpdate(path)
	if err != nil {
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	card := s.ownCard(path, entries, agentID)
	now := s.opts.Now()
	update(&card)
	raw, card, err := driver.FinishCard(card, agentID, now)
	if err != nil {
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	for attempt := 1; ; attempt++ {
		entries[agentID] = raw
		err := s.commitRegistry(path, entries, snap.info, attempt < registryAttempts)
		if !errors.Is(err, errRegistryChanged) {
			if err != nil {
				return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
			}
			return card, nil
		}
		// Only our own entry is ours to decide; take everyone else's
		// from the file that replaced the one we read.
		if snap, entries, err = s.loadRegistryForUpdate(path); err != nil {
			return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
		}
	}
}

// Card implements driver.Registry: agentID's card as the registry holds it,
// with the later heartbeat of the card and the agent's heartbeat file (see
// Heartbeat). It reads without locking. A corrupt registry is read as far
// as it can be (see salvagedEntries); an entry for agentID that is not a
// card is an error wrapping ErrRegistryCorrupt.
func (s *Store) Card(ctx context.Context, agentID string) (envelope.Card, error) {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return envelope.Card{}, fmt.Errorf("card: %w", err)
	}
	entries, err := s.readRegistry(ctx)
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
	s.withHeartbeat(&card)
	return card, nil
}

// Cards implements driver.Registry: every card, sorted by agent id, each
// with the later heartbeat of the card and its heartbeat file. It reads
// without locking. Keys that are not valid agent ids are left out, and so
// are entries that are not cards (each with a warning): one bad entry does
// not hide the other agents. A corrupt registry is read as far as it can be,
// with a warning (see salvagedEntries).
func (s *Store) Cards(ctx context.Context) ([]envelope.Card, error) {
	entries, err := s.readRegistry(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(entries))
	for id := range entries {
		if envelope.ValidateAgentID(id) == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	cards := make([]envelope.Card, 0, len(ids))
	for _, id := range ids {
		card, err := decodeCard(id, entries[id])
		if err != nil {
			s.opts.Logger.Warn("mailbox registry entry is not a card; skipped",
				"file", s.registryPath(), "agent", id, "err", err)
			continue
		}
		s.withHeartbeat(&card)
		cards = append(cards, card)
	}
	return cards, nil
}

func (s *Store) registryPath() string { return filepath.Join(s.root, registryName) }

// readRegistry reads and parses the registry for a reader.
func (s *Store) readRegistry(ctx context.Context) (map[string]json.RawMessage, error) {
	if err := s.checkOpen(); err != nil {
		return nil, fmt.Errorf("read registry: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read registry: %w", err)
	}
	path := s.registryPath()
	snap, err := readRegistryFile(path)
	if err != nil {
		return nil, err
	}
	entries, err := parseRegistry(snap.data)
	if err != nil {
		return s.salvagedEntries(snap.data, err), nil
	}
	return entries, nil
}

// loadRegistryForUpdate reads the registry for a writer holding the lock.
// A corrupt file is backed up and replaced by what can be salvaged from it.
func (s *Store) loadRegistryForUpdate(path string) (registrySnapshot, map[string]json.RawMessage, error) {
	snap, err := readRegistryFile(path)
	if err != nil {
		return snap, nil, err
	}
	entries, perr := parseRegistry(snap.data)
	if perr == nil {
		return snap, entries, nil
	}
	backup, err := backupCorruptRegistry(s.root, snap.data, s.opts.Now(), !s.opts.NoSync)
	if err != nil {
		return snap, nil, fmt.Errorf("registry %s: %w; keeping it as it is because a copy could not be saved: %v",
			path, perr, err)
	}
	entries = salvageRegistry(snap.data)
	s.opts.Logger.Warn("mailbox registry was corrupt; rewriting it from the entries that could be read",
		"file", path, "err", perr, "copy", backup, "salvaged", len(entries))
	return snap, entries, nil
}

// ownCard decodes agentID's entry for an update, or starts a new card. An
// entry that is not a card is replaced, with a warning.
func (s *Store) ownCard(path string, entries map[string]json.RawMessage, agentID string) envelope.Card {
	raw, ok := entries[agentID]
	if !ok {
		return envelope.Card{AgentID: agentID}
	}
	card, err := decodeCard(agentID, raw)
	if err != nil {
		s.opts.Logger.Warn("mailbox registry entry is not a card; replacing it",
			"file", path, "agent", agentID, "err", err)
		return envelope.Card{AgentID: agentID}
	}
	return card
}

// commitRegistry writes entries to a new file and renames it over path.
// With check, it first makes sure that path is still the file read
// (before), and returns errRegistryChanged, writing nothing, if it is not.
func (s *Store) commitRegistry(path string, entries map[string]json.RawMessage, before os.FileInfo, check bool) error {
	data, err := encodeRegistry(entries)
	if err != nil {
		return err
	}
	sync := !s.opts.NoSync
	tmp, err := writeRegistryTemp(s.root, data, sync)
	if err != nil {
		return err
	}
	unchanged, err := registryUnchanged(path, before)
	if err == nil && !unchanged && check {
		err = errRegistryChanged
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write registry: %w", err)
	}
	if sync {
		if err := syncDir(s.root); err != nil {
			return fmt.Errorf("write registry: %w", err)
		}
	}
	return nil
}

// decodeCard decodes one registry entry. The key names the agent, whatever
// the entry's agent_id says.
func decodeCard(key string, raw json.RawMessage) (envelope.Card, error) {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return envelope.Card{}, fmt.Errorf("%w: entry is not a JSON object", ErrRegistryCorrupt)
	}
	var card envelope.Card
	if err := json.Unmarshal(raw, &card); err != nil {
		return envelope.Card{}, fmt.Errorf("%w: %v", ErrRegistryCorrupt, err)
	}
	card.AgentID = key
	return card, nil
}
