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
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.DeadLetters = (*Store)(nil)

// rawPeek is how much of an unreadable set-aside entry SetAside returns.
const rawPeek = 4 << 10

// SetAside implements driver.DeadLetters: the entries of <agent>/rejected/
// with the reasons of their reason files, oldest first (by file name, as
// messages are ordered). An agent without the folder has none.
func (s *Store) SetAside(ctx context.Context, agent string) ([]driver.SetAside, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	dir, err := s.agentDir(agent)
	if err != nil {
		return nil, err
	}
	rejected := filepath.Join(dir, rejectedDir)
	entries, err := os.ReadDir(rejected)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", rejected, err)
	}
	var out []driver.SetAside
	for _, e := range entries {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		name := e.Name()
		if strings.HasSuffix(name, reasonSuffix) || strings.HasPrefix(name, ".") {
			continue
		}
		item := driver.SetAside{Agent: agent, Ref: name}
		if fi, err := e.Info(); err == nil {
			item.Time = fi.ModTime()
		}
		if rec, ok := readReasonFile(filepath.Join(rejected, name+reasonSuffix)); ok {
			item.Reason, item.Time = rec.Reason, rec.Time.Time
		}
		item.Message, item.Err = readMessage(filepath.Join(rejected, name), s.opts.MaxMessageBytes)
		if item.Message == nil {
			item.Raw = peekRaw(filepath.Join(rejected, name))
		}
		out = append(out, item)
	}
	slices.SortStableFunc(out, func(a, b driver.SetAside) int { return strings.Compare(a.Ref, b.Ref) })
	return out, nil
}

// Redeliver implements driver.DeadLetters: the copy is delivered and
// the entry and its reason file are removed.
func (s *Store) Redeliver(ctx context.Context, agent, ref string, copy *envelope.Message) error {
	path, err := s.setAsidePath(agent, ref)
	if err != nil {
		return err
	}
	if err := s.Deliver(ctx, copy); err != nil {
		return fmt.Errorf("redeliver %s: %w", ref, err)
	}
	return removeSetAside(path)
}

// Discard implements driver.DeadLetters: the entry and its reason file
// are removed.
func (s *Store) Discard(_ context.Context, agent, ref string) error {
	path, err := s.setAsidePath(agent, ref)
	if err != nil {
		return err
	}
	return removeSetAside(path)
}

// setAsidePath validates agent and ref and returns the entry's path.
func (s *Store) setAsidePath(agent, ref string) (string, error) {
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	dir, err := s.agentDir(agent)
	if err != nil {
		return "", err
	}
	if ref == "" || ref != filepath.Base(ref) || strings.ContainsAny(ref, `/\`) ||
		strings.HasPrefix(ref, ".") || strings.HasSuffix(ref, reasonSuffix) {
		return "", fmt.Errorf("%w: %q is not a set-aside entry's name", driver.ErrNotSetAside, ref)
	}
	path := filepath.Join(dir, rejectedDir, ref)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s/%s/%s", driver.ErrNotSetAside, agent, rejectedDir, ref)
	} else if err != nil {
		return "", err
	}
	return path, nil
}

// removeSetAside removes a set-aside entry and its reason file.
func removeSetAside(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Remove(path + reasonSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// readReason reads a reason file, if there is a readable one.
func readReasonFile(path string) (reasonRecord, bool) {
	var rec reasonRecord
	data, err := readRegular(path, 64<<10)
	if err != nil || json.Unmarshal(data, &rec) != nil {
		return rec, false
	}
	return rec, true
}

// peekRaw returns up to rawPeek bytes of a regular file (nil for
// anything else).
func peekRaw(path string) []byte {
	data, _ := readRegular(path, rawPeek)
	return data
}

// readRegular reads at most limit bytes of path, a regular file, without
// following a symlink or blocking on a FIFO.
func readRegular(path string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// reasonSuffix ends the file beside each quarantined entry that says why.
const reasonSuffix = ".reason.json"

// reasonRecord is the content of a reason file.
type reasonRecord struct {
	Reason    string        `json:"reason"`
	Time      envelope.Time `json:"time"`
	Agent     string        `json:"agent"`
	File      string        `json:"file"` // the entry's name where it was found
	MessageID string        `json:"message_id,omitempty"`
	From      string        `json:"from,omitempty"`
}

// quarantine moves <agent>/<sub>/name into rejected/ (under a free name),
// writes <name>.reason.json beside it and reports an event of kind. msg is
// the decoded message, if any. The entry is renamed, never opened, so a
// symlink or FIFO is moved as it is.
func (in *Inbox) quarantine(sub, name, reason string, kind driver.EventKind, msg *envelope.Message) error {
	rejected := filepath.Join(in.dir, rejectedDir)
	if err := ensureDir(rejected); err != nil {
		in.log.Error("cannot quarantine", "file", name, "reason", reason, "err", err)
		return err
	}
	got, err := moveFree(filepath.Join(in.dir, sub), name, rejected)
	if err != nil {
		in.log.Error("cannot quarantine", "file", name, "reason", reason, "err", err)
		return fmt.Errorf("move %s to rejected/: %w", name, err)
	}
	rec := reasonRecord{Reason: reason, Time: envelope.NewTime(in.s.opts.Now()), Agent: in.agent, File: name}
	ev := messageEvent(kind, in.agent, msg, got)
	ev.Reason = reason
	if msg != nil {
		rec.MessageID, rec.From = msg.ID, msg.From
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err == nil {
		err = writeFileAtomic(filepath.Join(rejected, got+reasonSuffix), data, !in.s.opts.NoSync)
	}
	if err != nil {
		in.log.Warn("quarantined without a reason file", "file", got, "err", err)
	}
	in.log.Warn("mailbox input set aside", "file", got, "kind", kind, "reason", reason)
	in.s.emit(ev)
	return nil
}
