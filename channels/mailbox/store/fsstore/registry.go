package fsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
// Under agentID's card lock (which only writers of this card take) it
// reads the card as it stands, its newest queued update or else the
// registry's entry (a zero card with AgentID set if there is none),
// applies update and queues the new card; then it waits until the card is
// merged into the registry, merging the queue itself whenever no one else
// is (see registry_queue.go): many writers at once share a few rewrites
// of the registry, and none waits for another's turn at a lock. update
// runs once, under the card lock; it must not call the registry. When ctx
// ends first, the queued card is withdrawn and UpdateCard fails with ctx's
// error (a merge that had read it already still writes it).
//
// A merge renames a new file over the registry, so readers, which take no
// lock, see the old or the new file and never a torn one; every other
// entry, nanobot's cards and keys switchboard does not know, is written
// back as the JSON it was read as.
//
// The card is written in the types nanobot reads: AgentID is agentID,
// capabilities, allow_from and current_tasks are lists ([] when empty), an
// empty status is idle or busy as current_tasks say (any other status than
// idle, busy and offline is an error), a zero registered_at is now and a
// zero last_heartbeat is registered_at. The card returned is the card as
// written.
//
// nanobot's writer does not take the lock. A merge that finds the file
// replaced between its read and its rename starts over from the new file,
// which narrows, but cannot close, the window in which one of the two
// writers loses the other's change. A corrupt registry is kept as
// _registry.json.corrupt-<unix> and rewritten from the entries that can
// still be read, with a warning.
func (s *Store) UpdateCard(ctx context.Context, agentID string, update func(*envelope.Card)) (envelope.Card, error) {
	if err := s.checkCardUpdate(ctx, "update card", agentID, update); err != nil {
		return envelope.Card{}, err
	}
	name, card, err := s.queueUpdate(ctx, agentID, update)
	if err != nil {
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	if name == "" {
		return card, nil // merged at once
	}
	if err := s.awaitMerge(ctx, name); err != nil {
		s.withdraw(name)
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	return card, nil
}

var _ driver.CardLeaver = (*Store)(nil)

// LeaveCard implements driver.CardLeaver: UpdateCard, except that when
// ctx ends while the card waits in the registry's queue, the card stays
// there for the next merge instead of being withdrawn. The registry's
// next writer merges it: an agent that starts, updates its card, or finds
// its heartbeat in the registry grown old.
func (s *Store) LeaveCard(ctx context.Context, agentID string, update func(*envelope.Card)) (bool, error) {
	if err := s.checkCardUpdate(ctx, "leave card", agentID, update); err != nil {
		return false, err
	}
	name, _, err := s.queueUpdate(ctx, agentID, update)
	if err != nil {
		return false, fmt.Errorf("leave card %q: %w", agentID, err)
	}
	if name == "" {
		return true, nil // merged at once
	}
	err = s.awaitMerge(ctx, name)
	switch {
	case err == nil:
		return true, nil
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return false, nil // queued: the next merge takes it
	default:
		return false, fmt.Errorf("leave card %q (queued for the next merge): %w", agentID, err)
	}
}

// checkCardUpdate checks what UpdateCard and LeaveCard (op) are given,
// and that the store is open and ctx not done.
func (s *Store) checkCardUpdate(ctx context.Context, op, agentID string, update func(*envelope.Card)) error {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if update == nil {
		return fmt.Errorf("%s %q: update function is nil", op, agentID)
	}
	if err := s.checkOpen(); err != nil {
		return fmt.Errorf("%s %q: %w", op, agentID, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s %q: %w", op, agentID, err)
	}
	return nil
}

// queueUpdate applies update to agentID's card as it stands, under the
// card's lock, and writes the result: at once, with the queue, when
// _registry.lock is free (name is ""), else by queueing it. It returns the
// queued file's name and the card as written.
func (s *Store) queueUpdate(ctx context.Context, agentID string, update func(*envelope.Card)) (string, envelope.Card, error) {
	unlock, err := s.lockCard(ctx, agentID)
	if err != nil {
		return "", envelope.Card{}, err
	}
	defer unlock()
	queue, card, err := s.currentCard(agentID)
	if err != nil {
		return "", envelope.Card{}, err
	}
	now := s.opts.Now()
	update(&card)
	raw, card, err := driver.FinishCard(card, agentID, now)
	if err != nil {
		return "", envelope.Card{}, err
	}
	merged, err := s.tryMerge(mergeRequest{agent: agentID, card: raw})
	if err != nil || merged {
		return "", card, err
	}
	name, err := s.enqueueCard(queue, agentID, raw)
	if err == nil && s.onQueued != nil {
		s.onQueued(name)
	}
	return name, card, err
}

// currentCard returns agentID's card as the next update must see it: its
// newest queued card, else its entry in the registry, else a new card;
// and the queue as listed. The caller holds the card's lock. The queue is
// listed before the registry is read: a queued card is removed only after
// the registry that holds it is in place. The registry is read afresh,
// not from the view heartbeats use: a file renamed in can reuse the inode
// of the one it replaced, with the same size and time.
func (s *Store) currentCard(agentID string) ([]queuedCard, envelope.Card, error) {
	for range registryAttempts {
		queue, err := s.listQueue()
		if err != nil {
			return nil, envelope.Card{}, err
		}
		q, ok := newestQueued(queue, agentID)
		if !ok {
			card, err := s.registryCard(agentID)
			return queue, card, err
		}
		data, err := s.readQueued(q.name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // merged meanwhile: look again
		}
		if err == nil {
			var card envelope.Card
			if card, err = decodeCard(agentID, data); err == nil {
				return queue, card, nil
			}
		}
		s.opts.Logger.Warn("queued card not read; starting from the registry's", "file", q.name, "err", err)
		card, err := s.registryCard(agentID)
		return queue, card, err
	}
	return nil, envelope.Card{}, errors.New("the registry's queue kept changing; try again")
}

// registryCard reads agentID's card from the registry file for an update
// (as far as the file can be read when it is corrupt: the merge then
// keeps a copy and rewrites it), or a new card.
func (s *Store) registryCard(agentID string) (envelope.Card, error) {
	path := s.registryPath()
	raw, _, _, found, err := searchRegistry(path, agentID)
	if err != nil {
		return envelope.Card{}, err
	}
	switch found {
	case entryFound:
		return s.ownCard(path, map[string]json.RawMessage{agentID: raw}, agentID), nil
	case entryAbsent: // a new agent: no need to parse a thousand others
		return envelope.Card{AgentID: agentID}, nil
	}
	snap, err := readRegistryFile(path)
	if err != nil {
		return envelope.Card{}, err
	}
	entries, err := parseRegistry(snap.data)
	if err != nil {
		entries = salvageRegistry(snap.data)
	}
	return s.ownCard(path, entries, agentID), nil
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

// entriesForUpdate parses the registry read (snap) for a writer holding
// the lock. A corrupt file is backed up and replaced by what can be
// salvaged from it.
func (s *Store) entriesForUpdate(path string, snap registrySnapshot) (map[string]json.RawMessage, error) {
	entries, perr := parseRegistry(snap.data)
	if perr == nil {
		return entries, nil
	}
	backup, err := backupCorruptRegistry(s.root, snap.data, s.opts.Now(), !s.opts.NoSync)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w; keeping it as it is because a copy could not be saved: %v",
			path, perr, err)
	}
	entries = salvageRegistry(snap.data)
	s.opts.Logger.Warn("mailbox registry was corrupt; rewriting it from the entries that could be read",
		"file", path, "err", perr, "copy", backup, "salvaged", len(entries))
	return entries, nil
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
	return s.commitRegistryData(path, data, before, check)
}

// commitRegistryData is commitRegistry with the file's bytes.
func (s *Store) commitRegistryData(path string, data []byte, before os.FileInfo, check bool) error {
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
