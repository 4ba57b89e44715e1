package fsstore

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// The index of message summaries that Skim keeps, one file per agent,
// outside the mailbox tree (so that nanobot never sees it and the
// read-only commands leave the tree as it was). It is a cache: a message
// file is never rewritten and keeps its name when it moves, so the
// summary read from it once stays true as long as a file of that name is
// in the agent's mailbox. Every use lists the mailbox, reads the files
// the index does not know, and forgets the names that are gone; a file
// that is missing, torn or corrupt (its checksum says so) counts as an
// empty index and is rewritten whole. Writes go to a temporary file
// renamed over the old one, so a crash leaves the old index or the new.

// indexSuffix ends the name of an agent's index file.
const indexSuffix = ".idx"

// defaultIndexDir returns the folder of root's index under the user's
// cache folder, or "" when there is none.
func defaultIndexDir(root string) string {
	cache, err := os.UserCacheDir()
	if err != nil || cache == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(cache, "switchboard", "index", hex.EncodeToString(sum[:8]))
}

// summaryIndex is one agent's index, in memory: the summaries of the
// files it knows, in the order the last listing found them (a folder
// that did not change lists in the same order, so a lookup is mostly a
// comparison with the next name), and the order this listing found them.
type summaryIndex struct {
	names []string
	sums  []store.Summary
	next  int            // where the next name is expected
	at    map[string]int // file name -> position, made on the first surprise
	order []int          // positions found again or added, in listing order
	added bool           // a summary was added: the file must be rewritten
}

// find returns the position of the file name, and notes it found again.
func (x *summaryIndex) find(name string) (int, bool) {
	i := x.next
	if i >= len(x.names) || x.names[i] != name {
		if x.at == nil {
			x.at = make(map[string]int, len(x.names))
			for j, n := range x.names {
				x.at[n] = j
			}
		}
		var ok bool
		if i, ok = x.at[name]; !ok {
			return 0, false
		}
	}
	x.next = i + 1
	x.order = append(x.order, i)
	return i, true
}

// add records the summary of the file name and returns its position.
func (x *summaryIndex) add(name string, sum store.Summary) int {
	i := len(x.names)
	x.names, x.sums = append(x.names, name), append(x.sums, sum)
	if x.at != nil {
		x.at[name] = i
	}
	x.order = append(x.order, i)
	x.added = true
	return i
}

// changed reports whether the index differs from its file: a summary
// was added, a name it holds was not found again, or the listing order
// changed.
func (x *summaryIndex) changed() bool {
	if x.added || len(x.order) != len(x.names) {
		return true
	}
	for k, i := range x.order {
		if k != i {
			return true
		}
	}
	return false
}

// indexPath returns the file of agent's index, or "" without an index.
func (s *Store) indexPath(agent string) string {
	if s.indexDir == "" {
		return ""
	}
	return filepath.Join(s.indexDir, agent+indexSuffix)
}

// loadIndex reads agent's index; a missing or damaged one is empty.
func (s *Store) loadIndex(agent string) *summaryIndex {
	empty := &summaryIndex{}
	path := s.indexPath(agent)
	if path == "" {
		return empty
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return empty
	}
	names, sums, err := decodeIndex(data)
	if err != nil {
		s.opts.Logger.Debug("index of message summaries damaged; rebuilding it", "file", path, "err", err)
		empty.added = true // rewrite it even if the mailbox is empty
		return empty
	}
	return &summaryIndex{names: names, sums: sums, order: make([]int, 0, len(names))}
}

// saveIndex writes agent's index if it changed. A failure costs only
// speed: it is logged, and the next Skim reads the files again.
func (s *Store) saveIndex(agent string, x *summaryIndex) {
	path := s.indexPath(agent)
	if path == "" || !x.changed() {
		return
	}
	if err := writeIndexFile(path, encodeIndex(x)); err != nil {
		s.opts.Logger.Debug("index of message summaries not written", "file", path, "err", err)
	}
}

// writeIndexFile replaces path with data: a temporary file in the same
// folder (created 0700 if missing), renamed over it.
func writeIndexFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*"+tmpSuffix)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
