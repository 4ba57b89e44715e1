package fsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// heartbeatName is the file in <agent>/state/ that holds the agent's
// latest heartbeat. It can never be a state record's name: state keys
// begin with a letter or digit.
const heartbeatName = "_heartbeat.json"

// maxHeartbeatBytes caps a heartbeat file when it is read.
const maxHeartbeatBytes = 4 << 10

// heartbeatFile is what a heartbeat file holds.
type heartbeatFile struct {
	AgentID       string        `json:"agent_id"`
	LastHeartbeat envelope.Time `json:"last_heartbeat"`
	PID           int           `json:"pid"`
}

var _ driver.Heartbeater = (*Store)(nil)

// Heartbeat implements driver.Heartbeater. It replaces the agent's
// heartbeat file (<agent>/state/_heartbeat.json, mode 0600, written beside
// and renamed in, never synced: a heartbeat lost in a machine crash does
// not matter), which Card and Cards read. _registry.json is rewritten only
// when the agent's card there says a heartbeat older than maxAge, and
// then once for every agent whose heartbeat file is newer than its card:
// with many agents on one root, one write renews them all, and nanobot's
// readers, which read only the registry, see every live agent's heartbeat
// at most about maxAge old. That rewrite is a merge of the registry's
// queue (registry_merge.go), which renews every heartbeat whoever makes
// it; a heartbeat never waits for one: when _registry.lock is held, it
// leaves the renewal to the merge under way.
func (s *Store) Heartbeat(ctx context.Context, agentID string, now time.Time, maxAge time.Duration) (envelope.Card, error) {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return envelope.Card{}, fmt.Errorf("heartbeat: %w", err)
	}
	if err := s.checkOpen(); err != nil {
		return envelope.Card{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
	}
	if err := ctx.Err(); err != nil {
		return envelope.Card{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
	}
	if err := s.writeHeartbeat(agentID, now); err != nil {
		return envelope.Card{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
	}
	card, err := s.viewCard(agentID)
	if err != nil {
		return envelope.Card{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
	}
	if now.Sub(card.LastHeartbeat.Time) > maxAge {
		// Never waits: a merge under way (every merge renews every
		// heartbeat) or the next beat does it otherwise.
		if _, err := s.tryMerge(&staleCheck{agent: agentID, before: now.Add(-maxAge)}); err != nil {
			return envelope.Card{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
		}
	}
	if now.After(card.LastHeartbeat.Time) {
		card.LastHeartbeat = envelope.NewTime(now)
	}
	return card, nil
}

func (s *Store) heartbeatPath(agentID string) string {
	return filepath.Join(s.root, agentID, stateDir, heartbeatName)
}

// writeHeartbeat replaces agentID's heartbeat file.
func (s *Store) writeHeartbeat(agentID string, now time.Time) error {
	data, err := json.Marshal(heartbeatFile{AgentID: agentID, LastHeartbeat: envelope.NewTime(now), PID: os.Getpid()})
	if err != nil {
		return err
	}
	path := s.heartbeatPath(agentID)
	err = writeFileAtomic(path, data, false)
	if errors.Is(err, fs.ErrNotExist) { // the agent's folders are not there (yet, or any more)
		if _, err = s.ensureAgentDirs(agentID, stateDir); err == nil {
			err = writeFileAtomic(path, data, false)
		}
	}
	return err
}

// readHeartbeat returns the time in agentID's heartbeat file; ok is false
// when there is none or it cannot be read. Neither the agent folder nor
// state/ nor the file is followed if it is a symlink.
func (s *Store) readHeartbeat(agentID string) (t time.Time, ok bool) {
	path := s.heartbeatPath(agentID)
	if checkDir(filepath.Dir(path)) != nil || checkDir(filepath.Dir(filepath.Dir(path))) != nil {
		return time.Time{}, false
	}
	// O_NONBLOCK: a FIFO put in the file's place must not hang the reader.
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return time.Time{}, false
	}
	data, err := readAllCapped(f, maxHeartbeatBytes)
	if err != nil {
		return time.Time{}, false
	}
	var hb heartbeatFile
	if json.Unmarshal(data, &hb) != nil || hb.AgentID != agentID {
		return time.Time{}, false
	}
	return hb.LastHeartbeat.Time, !hb.LastHeartbeat.IsZero()
}

// withHeartbeat sets card's last_heartbeat to its heartbeat file's time
// when that is later: what switchboard's readers see.
func (s *Store) withHeartbeat(card *envelope.Card) {
	if t, ok := s.readHeartbeat(card.AgentID); ok && t.After(card.LastHeartbeat.Time) {
		card.LastHeartbeat = envelope.NewTime(t)
	}
}
