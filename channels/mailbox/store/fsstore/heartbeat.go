package fsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// heartbeatName is the file in <agent>/state/ whose modification time is
// the agent's latest heartbeat. It can never be a state record's name: state keys
// begin with a letter or digit.
const heartbeatName = "_heartbeat.json"

// heartbeatFile is what a heartbeat file holds: the agent, and the time
// and process of the beat that made it (later beats change only its
// modification time).
type heartbeatFile struct {
	AgentID       string        `json:"agent_id"`
	LastHeartbeat envelope.Time `json:"last_heartbeat"`
	PID           int           `json:"pid"`
}

var _ driver.Heartbeater = (*Store)(nil)

// Heartbeat implements driver.Heartbeater. It sets the modification time
// of the agent's heartbeat file (<agent>/state/_heartbeat.json, mode 0600,
// never synced: a heartbeat lost in a machine crash does not matter) to
// now, which Card and Cards read as the agent's latest heartbeat. _registry.json is rewritten only
// when the agent's card there says a heartbeat older than maxAge, and
// then once for every agent whose heartbeat file is newer than its card:
// with many agents on one root, one write renews them all, and nanobot's
// readers, which read only the registry, see every live agent's heartbeat
// at most about maxAge old. That rewrite is a merge of the registry's
// queue (registry_queue.go); a heartbeat never waits for one: when
// _registry.lock is held, it leaves a marker that asks the next merge to
// renew every heartbeat.
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
		// Never waits: while a merge is under way, the renew marker asks
		// the next to renew every heartbeat.
		merged, err := s.tryMerge(mergeRequest{stale: &staleCheck{agent: agentID, before: now.Add(-maxAge)}})
		if err != nil {
			return envelope.Card{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
		}
		if !merged {
			s.askRenewal()
		}
	}
	if now.After(card.LastHeartbeat.Time) {
		card.LastHeartbeat = envelope.NewTime(now)
	}
	return card, nil
}

// askRenewal leaves the renew marker for the next merge.
func (s *Store) askRenewal() {
	if s.ensureQueueDir() != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(s.queueDir(), renewMarker), os.O_WRONLY|os.O_CREATE|noFollow, 0o600)
	if err == nil {
		f.Close()
	}
}

func (s *Store) heartbeatPath(agentID string) string {
	return filepath.Join(s.root, agentID, stateDir, heartbeatName)
}

// writeHeartbeat sets the time of agentID's heartbeat file to now: one
// system call, where writing a file and renaming it in costs the creation
// of a file in the agent's folder at every beat. The file is made (with
// the agent's id, the time and the process) when it is missing.
func (s *Store) writeHeartbeat(agentID string, now time.Time) error {
	path := s.heartbeatPath(agentID)
	err := touch(path, now)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data, err := json.Marshal(heartbeatFile{AgentID: agentID, LastHeartbeat: envelope.NewTime(now), PID: os.Getpid()})
	if err != nil {
		return err
	}
	err = writeFileAtomic(path, data, false)
	if errors.Is(err, fs.ErrNotExist) { // the agent's folders are not there (yet, or any more)
		if _, err = s.ensureAgentDirs(agentID, stateDir); err == nil {
			err = writeFileAtomic(path, data, false)
		}
	}
	if err != nil {
		return err
	}
	return touch(path, now)
}

// readHeartbeat returns the time of agentID's last heartbeat, the
// modification time of its heartbeat file; ok is false when there is
// none, or what is there is not a regular file. Neither the agent folder
// nor state/ nor the file is followed if it is a symlink.
func (s *Store) readHeartbeat(agentID string) (t time.Time, ok bool) {
	path := s.heartbeatPath(agentID)
	if checkDir(filepath.Dir(path)) != nil || checkDir(filepath.Dir(filepath.Dir(path))) != nil {
		return time.Time{}, false
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// withHeartbeat sets card's last_heartbeat to its heartbeat file's time
// when that is later: what switchboard's readers see.
func (s *Store) withHeartbeat(card *envelope.Card) {
	if t, ok := s.readHeartbeat(card.AgentID); ok && t.After(card.LastHeartbeat.Time) {
		card.LastHeartbeat = envelope.NewTime(t)
	}
}

// turnPrefix begins the name of a shared duty's file in the root,
// _turn.<duty>: it holds the Unix time, in nanoseconds, of the duty's last
// turn, and its flock is held by whoever is deciding the next.
const turnPrefix = "_turn."

var _ driver.TurnTaker = (*Store)(nil)

// TakeTurn implements driver.TurnTaker with the duty's file in the root:
// under its flock, taken without waiting (a caller that finds it held is
// told false: someone is taking the turn now), it reads the time of the
// last turn and, when that is every or more before now (or after now, or
// unreadable), writes now and reports true.
func (s *Store) TakeTurn(ctx context.Context, duty string, now time.Time, every time.Duration) (bool, error) {
	if err := s.checkOpen(); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if duty == "" || strings.Trim(duty, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return false, fmt.Errorf("take turn: duty %q: want lower-case letters, digits and '-'", duty)
	}
	f, err := openLockFile(filepath.Join(s.root, turnPrefix+duty))
	if err != nil {
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	}
	locked, err := tryLock(f)
	if err != nil || !locked {
		f.Close()
		return false, err
	}
	defer releaseLock(f)
	buf := make([]byte, 32)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	}
	if ns, perr := strconv.ParseInt(strings.TrimSpace(string(buf[:n])), 10, 64); perr == nil {
		last := time.Unix(0, ns)
		if since := now.Sub(last); since >= 0 && since < every {
			return false, nil
		}
	}
	stamp := strconv.AppendInt(nil, now.UnixNano(), 10)
	if _, err := f.WriteAt(append(stamp, '\n'), 0); err != nil {
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	}
	if err := f.Truncate(int64(len(stamp) + 1)); err != nil {
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	}
	return true, nil
}
