package fsstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/fileinfo"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
)

// Folder names inside an agent's folder (see the package comment).
const (
	inboxDir     = "inbox"
	processedDir = "processed"
	tmpDir       = "tmp"
	claimedDir   = "claimed"
	rejectedDir  = "rejected"
	stateDir     = "state"
	archiveDir   = "archive"
)

// maxNameTries bounds the search for a free inbox name when a different
// message already holds the one a message would get.
const maxNameTries = 16

// Deliver implements driver.Sender. It writes the encoded message (compact
// JSON, envelope.EncodeCompact) to a staging file in <to>/tmp/ (created
// exclusively, mode 0600, synced unless Options.NoSync) and hard-links it
// into <to>/inbox/ under envelope.FileName, never replacing a file there,
// so the message appears in the inbox whole or not at all; a crash leaves
// at most an orphan in tmp/. If the inbox already holds the same bytes
// under that name, the message was delivered before and Deliver succeeds;
// if it holds other bytes, the message gets a name with an extra random
// suffix. The recipient's folders are created and checked on the first
// send to it (see deliveryDir), and again when one has gone missing.
//
// With fsync on, Deliver returns once the message is durable: its file
// synced before the link, and the inbox folder synced after it. Delivers
// running at once into the same inbox share that folder sync (group
// commit, see inboxSyncs); a failed sync is the error of each of them.
func (s *Store) Deliver(ctx context.Context, msg *envelope.Message) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := driver.EncodeForDelivery(msg, s.opts.MaxMessageBytes, envelope.EncodeCompact)
	if err != nil {
		return err
	}
	dir, name, again, err := s.put(msg, data)
	if err != nil && missingDir(err) {
		s.forgetDirs(msg.To) // a folder was removed: create and check them again
		dir, name, again, err = s.put(msg, data)
	}
	if err != nil {
		return fmt.Errorf("deliver %s to %q: %w", msg.ID, msg.To, err)
	}
	if !s.opts.NoSync { // one fsync for the Delivers that linked into this inbox meanwhile
		if err := s.inboxSyncs.sync(filepath.Join(dir, inboxDir)); err != nil {
			return fmt.Errorf("deliver %s to %q: sync inbox: %w", msg.ID, msg.To, err)
		}
	}
	if again {
		s.opts.Logger.Debug("message already in the inbox", "id", msg.ID, "to", msg.To, "file", name)
		return nil
	}
	s.markPriority(dir, name, msg.Priority)
	return nil
}

// put stages data in the recipient's tmp/ and links it into its inbox
// (see Deliver). It returns the agent folder and the inbox name used.
func (s *Store) put(msg *envelope.Message, data []byte) (dir, name string, again bool, err error) {
	if dir, err = s.deliveryDir(msg.To); err != nil {
		return "", "", false, err
	}
	staging, err := s.stage(filepath.Join(dir, tmpDir), envelope.FileName(msg), data)
	if err != nil {
		return "", "", false, err
	}
	defer os.Remove(staging)
	inbox := filepath.Join(dir, inboxDir)
	s.emitAfter(func() *driver.Event { // logged as sent before the receiver can log its claim
		if name, again, err = linkIn(staging, inbox, envelope.FileName(msg), data); err != nil || again {
			return nil
		}
		ev := messageEvent(driver.EventSent, msg.To, msg, name)
		return &ev
	})
	return dir, name, again, err
}

// stage writes data to a new file in dir and returns its path.
func (s *Store) stage(dir, name string, data []byte) (string, error) {
	path := filepath.Join(dir, name+"."+randHex(6)+tmpSuffix)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return "", fmt.Errorf("create staging file: %w", err)
	}
	_, err = f.Write(data)
	if err == nil && !s.opts.NoSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("write staging file: %w", err)
	}
	return path, nil
}

// linkIn links staging into inbox under name without replacing anything.
// again reports that the inbox already held the same bytes under name.
func linkIn(staging, inbox, name string, data []byte) (used string, again bool, err error) {
	try := name
	for range maxNameTries {
		err := os.Link(staging, filepath.Join(inbox, try))
		if err == nil {
			return try, false, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", false, fmt.Errorf("link into inbox: %w", err)
		}
		same, err := sameContent(filepath.Join(inbox, try), data)
		switch {
		case err == nil && same:
			return try, true, nil
		case errors.Is(err, fs.ErrNotExist):
			continue // acknowledged meanwhile: the name is free again
		}
		try = withSuffix(name)
	}
	return "", false, fmt.Errorf("link into inbox: no free name for %s after %d tries", name, maxNameTries)
}

// sameContent reports whether the regular file at path holds exactly data.
func sameContent(path string, data []byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) {
		return false, err
	}
	got, err := io.ReadAll(io.LimitReader(f, int64(len(data))+1))
	if err != nil {
		return false, err
	}
	return bytes.Equal(got, data), nil
}

// deliveryDirs are the folders of an agent that Deliver writes to.
var deliveryDirs = []string{inboxDir, processedDir, tmpDir}

// checkedDirs is what deliveryDir remembers of an agent's folders: the
// agent folder and the two Deliver writes through (tmp/ and inbox/), as
// they were when ensureAgentDirs created and checked them.
type checkedDirs struct {
	dir   string
	infos [3]fs.FileInfo // dir, dir/tmp, dir/inbox
}

func (c *checkedDirs) paths() [3]string {
	return [3]string{c.dir, filepath.Join(c.dir, tmpDir), filepath.Join(c.dir, inboxDir)}
}

// stillSame reports whether the remembered folders are still the same
// real folders with the same mode: one lstat each, no symlink followed. A
// folder replaced (by a symlink, or anything else) or chmodded fails it.
func (c *checkedDirs) stillSame() bool {
	for i, p := range c.paths() {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || !os.SameFile(fi, c.infos[i]) || fi.Mode() != c.infos[i].Mode() {
			return false
		}
	}
	return true
}

// deliveryDir returns the agent folder of agentID with the folders Deliver
// needs. The first time for this Store it checks them all (one lstat
// each, checkDeliveryDirs), creating the missing ones (ensureAgentDirs);
// after that it only makes sure, with three lstats, that the agent
// folder, tmp/ and inbox/ are still the folders it checked, and checks
// everything anew when one is not. A folder removed between
// that and the write makes the create or link fail with fs.ErrNotExist;
// Deliver then calls forgetDirs and asks again.
func (s *Store) deliveryDir(agentID string) (string, error) {
	if v, ok := s.knownDirs.Load(agentID); ok {
		if c := v.(*checkedDirs); c.stillSame() {
			return c.dir, nil
		}
		s.forgetDirs(agentID)
	}
	c, err := s.checkDeliveryDirs(agentID)
	if errors.Is(err, fs.ErrNotExist) { // a first message: make what is missing
		var dir string
		if dir, err = s.ensureAgentDirs(agentID, deliveryDirs...); err == nil {
			c = &checkedDirs{dir: dir}
			for i, p := range c.paths() {
				if c.infos[i], err = os.Lstat(p); err != nil {
					break
				}
			}
		}
	}
	if err != nil {
		return "", err
	}
	s.knownDirs.Store(agentID, c)
	return c.dir, nil
}

// checkDeliveryDirs checks, with one lstat each, that the agent folder of
// agentID and the folders Deliver needs are all there, real folders (no
// symlink) that only this user can write to, as ensureAgentDirs would
// leave them. An error wrapping fs.ErrNotExist says one is missing.
func (s *Store) checkDeliveryDirs(agentID string) (*checkedDirs, error) {
	dir, err := s.agentDir(agentID)
	if err != nil {
		return nil, err
	}
	c := &checkedDirs{dir: dir}
	paths := c.paths()
	for i, p := range append(paths[:], filepath.Join(dir, processedDir)) {
		fi, err := os.Lstat(p)
		if err == nil {
			err = checkDirInfo(p, fi)
		}
		if err == nil {
			err = checkPrivateInfo(p, fi)
		}
		if err != nil {
			return nil, err
		}
		if i < len(c.infos) {
			c.infos[i] = fi
		}
	}
	return c, nil
}

// forgetDirs drops what deliveryDir remembers about agentID.
func (s *Store) forgetDirs(agentID string) { s.knownDirs.Delete(agentID) }

// missingDir reports whether err says that a folder (or the staging file)
// was not there, which a fresh deliveryDir may repair.
func missingDir(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// inboxSyncs shares the fsync of a recipient's inbox folder among the
// Delivers of one Store that link into it at the same time (group
// commit, see groupCommit): each Deliver links its message in, then
// waits for a sync of the folder that started after its link. The first
// one finding no sync running starts one at once; those that link while
// it runs are served together by the next, one fsync for all of them
// (up to maxUnsynced waiting). A lone Deliver pays what it paid without
// grouping; N concurrent Delivers to one inbox pay a few folder fsyncs
// instead of N. Each inbox has a group of its own, so deliveries to
// different inboxes sync in parallel. A failed sync is the error of
// every Deliver it was to serve.
type inboxSyncs struct {
	groups sync.Map // inbox folder path -> *inboxGroup

	// target makes the syncTarget of an inbox folder; nil: fsync by
	// path. Tests replace it to count or fail the syncs.
	target func(inbox string) syncTarget
}

// inboxGroup is the group commit of one inbox folder and what it syncs.
type inboxGroup struct {
	commit *groupCommit
	target syncTarget
}

// dirByPath is a folder fsynced by path (opened for each sync).
type dirByPath string

func (d dirByPath) syncNow() error { return syncDir(string(d)) }

// sync returns once a fsync of the inbox folder at path that started
// after the call has ended, with its error.
func (x *inboxSyncs) sync(inbox string) error {
	g := x.group(inbox)
	done := make(chan error, 1)
	g.commit.submit(true, nil, func(err error) { done <- err }, g.target)
	return <-done
}

// group returns the group of the inbox folder at path, made on first use.
func (x *inboxSyncs) group(inbox string) *inboxGroup {
	if g, ok := x.groups.Load(inbox); ok {
		return g.(*inboxGroup)
	}
	g := &inboxGroup{commit: newGroupCommit(nil), target: dirByPath(inbox)}
	g.commit.window = 0 // a Deliver waits for every change: no window
	if x.target != nil {
		g.target = x.target(inbox)
	}
	actual, _ := x.groups.LoadOrStore(inbox, g)
	return actual.(*inboxGroup)
}

// deadSenderReason marks a "sent" line that a receiver logged for a sender
// that stopped between delivering the message and logging it.
const deadSenderReason = "logged by the receiver: its sender stopped after delivering it, before logging it"

// dropStaging removes the staging file tmp/name (described by fi), which
// is older than stagingMaxAge: its sender died. A staging file with
// another link was linked into the inbox, so the message was delivered
// and its sender died before it logged "sent"; the line is logged first
// (logSentOnce) so the audit log has every delivered message.
func (in *Inbox) dropStaging(tmp, name string, fi fs.FileInfo) {
	path := filepath.Join(tmp, name)
	if fileinfo.Links(fi) > 1 {
		if msg, err := readMessage(path, in.s.opts.MaxMessageBytes); err == nil {
			in.s.logSentOnce(msg)
		}
	}
	if os.Remove(path) == nil {
		in.log.Info("removed orphaned staging file", "file", name)
	}
}

// logSentOnce logs a "sent" line for msg unless the audit log already has
// one. It reads the log (all its files) under the log's lock, which the
// sender holds from linking the message in until it has logged "sent",
// so a sender that is still alive has always logged it by then. It runs
// only for a message whose sender died (a staging file left behind),
// never on the normal path.
func (s *Store) logSentOnce(msg *envelope.Message) {
	if s.audit == nil {
		return
	}
	s.emitAfter(func() *driver.Event {
		found := false
		_, err := audit.Read(context.Background(), s.root,
			audit.Filter{MessageID: msg.ID, Kinds: []driver.EventKind{driver.EventSent}},
			func(audit.Entry) bool { found = true; return false })
		if err != nil || found {
			return nil
		}
		ev := messageEvent(driver.EventSent, msg.To, msg, envelope.FileName(msg))
		ev.Reason = deadSenderReason
		return &ev
	})
}
