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
	"syscall"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
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
