package fsstore

import (
	"os"
	"sync"
	"time"
)

// quietRacy is how recently a folder may have changed for a scan that
// found it empty to still vouch for it: a file system that keeps times
// to the second (or two) can add an entry within the same tick of its
// clock without the folder's time moving, so a scan that close to the
// last change proves nothing about the next look.
const quietRacy = 2 * time.Second

// quietMark lets the safety-net rescan of a watched folder (the tick of
// the inbox's watcher, every Options.PollInterval) skip a folder that
// its last scan found empty and that has not changed since: a new entry
// changes the folder's modification time, so an idle agent's tick costs
// one stat instead of listing its folders and waking its receiver. A
// folder that held anything at its last scan (a message in flight, one
// that could not be taken, a foreign entry) is scanned at every tick as
// before, as is one whose stat cannot be read. Events from the watcher
// always poke, whatever the mark says.
type quietMark struct {
	mu   sync.Mutex
	info os.FileInfo // the folder just before the scan that found it empty; nil: scan at the next tick
}

// statBeforeScan returns dir's stat, taken before a scan of it, or nil.
func statBeforeScan(dir string) os.FileInfo {
	if !quietMarks {
		return nil
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return nil
	}
	return fi
}

// scanned records what a scan found: empty says that it found no entry
// worth looking at again; before is the folder's stat taken just before
// the scan (statBeforeScan). now is the wall clock: folder times are the
// file system's, not an injected clock's.
func (m *quietMark) scanned(before os.FileInfo, empty bool, now time.Time) {
	if m == nil {
		return
	}
	ok := empty && before != nil && now.Sub(before.ModTime()) >= quietRacy
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok {
		m.info = before
	} else {
		m.info = nil
	}
}

// unchanged reports whether dir is still the empty folder its last scan
// found: the same folder, with the same modification time and size.
func (m *quietMark) unchanged(dir string) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	info := m.info
	m.mu.Unlock()
	if info == nil {
		return false
	}
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir() && os.SameFile(fi, info) &&
		fi.ModTime().Equal(info.ModTime()) && fi.Size() == info.Size()
}
