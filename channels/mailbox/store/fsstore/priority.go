package fsstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// priorityDir holds a marker for each pending message of priority 1 to
// 3: an empty file named "<3-priority>_<inbox name>", so that name order
// is priority order (highest first) and then delivery order. Messages are
// delivered into inbox/ as always (nanobot reads them there); the marker
// only lets the receiver take them first. A marker whose message is gone
// is simply removed.
const priorityDir = "priority"

// markerName returns the marker of inbox file name at priority p (1-3).
func markerName(name string, p int) string { return strconv.Itoa(3-p) + "_" + name }

// markedName returns the inbox file name a marker points to.
func markedName(marker string) string {
	if len(marker) > 2 && marker[1] == '_' {
		return marker[2:]
	}
	return ""
}

// markPriority records that inbox file name of agent folder dir has
// priority p. The message is delivered already, so a failure only costs
// its place in the queue: it is logged, not returned.
func (s *Store) markPriority(dir, name string, p int) {
	if p <= 0 || p > 3 {
		return
	}
	pdir := filepath.Join(dir, priorityDir)
	err := ensureDir(pdir)
	if err == nil {
		var f *os.File
		f, err = os.OpenFile(filepath.Join(pdir, markerName(name, p)), os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
		if err == nil {
			err = f.Close()
		} else if errors.Is(err, fs.ErrExist) {
			err = nil
		}
	}
	if err != nil {
		s.opts.Logger.Warn("priority not recorded; the message waits its turn", "file", name, "priority", p, "err", err)
	}
}

// loadUrgent reads the markers of priority messages, highest priority
// first.
func (in *Inbox) loadUrgent() {
	sc, err := scanDir(filepath.Join(in.dir, priorityDir), in.batch, "", nil)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		in.log.Warn("cannot read priority markers; messages are taken in name order", "err", err)
	}
	in.urgent = sc.names
	for _, name := range sc.foreign { // not a marker: nothing else belongs here
		if err := os.Remove(filepath.Join(in.dir, priorityDir, name)); err != nil {
			in.log.Debug("cannot remove foreign entry of priority/", "name", name, "err", err)
		}
	}
}

// takeUrgent claims the message of the first marker and removes the
// marker. It returns nil when that message is no longer pending.
func (in *Inbox) takeUrgent() *driver.Delivery {
	marker := in.urgent[0]
	in.urgent = in.urgent[1:]
	defer func() {
		err := os.Remove(filepath.Join(in.dir, priorityDir, marker))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			in.log.Warn("cannot remove priority marker", "marker", marker, "err", err)
		}
	}()
	name := markedName(marker)
	if name == "" || classify(name) != entryMessage {
		return nil
	}
	return in.take(name, inboxDir, false)
}

// pokePriority asks Next to read the markers again.
func (in *Inbox) pokePriority() {
	select {
	case in.prio <- struct{}{}:
	default:
	}
}
