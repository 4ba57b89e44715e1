package fsstore

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// The index of message summaries that Skim keeps, one file per agent,
// outside the mailbox tree (so that nanobot never sees it and the
// read-only commands leave the tree as it was). It is a cache: a message
// file is never rewritten and keeps its name when it moves, so the
// summary read from it once stays true as long as a file of that name is
// in the agent's mailbox. Every use lists the mailbox, streams the index
// (holding one record at a time, never the whole file), reads the files
// the index does not know, and forgets the names that are gone; a record
// that is torn or corrupt (its checksum says so) ends the reading, and
// the files after it are read as if unknown. A changed index is
// rewritten: to a temporary file renamed over the old one, so a crash
// leaves the old index or the new.

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

// indexPath returns the file of agent's index, or "" without an index.
func (s *Store) indexPath(agent string) string {
	if s.indexDir == "" {
		return ""
	}
	return filepath.Join(s.indexDir, agent+indexSuffix)
}

// listedFile is a message file found by listing an agent's mailbox.
type listedFile struct {
	end   uint32 // its name is mailboxListing.names[previous end:end]
	dir   int32  // its folder, in mailboxListing.dirs
	twin  int32  // the next file of the same name (in another folder), or -1
	found bool   // the index gave its summary
}

// listedDir is a folder of a mailbox: its path under the root and box.
type listedDir struct {
	rel string
	box driver.Box
}

// mailboxListing is the message files of one agent's mailbox, in the
// order the folders listed them; their names are kept end to end in one
// buffer. An index written from a listing keeps its order, so matching
// the records of an unchanged mailbox is mostly a comparison with the
// next name; the first surprise makes a map.
type mailboxListing struct {
	dirs  []listedDir
	files []listedFile
	names []byte
	next  int              // where the next record is expected
	at    map[string]int32 // file name -> first position, made on the first surprise
}

// reserve makes room for files more files whose names take nameBytes
// bytes, from the hints of an index of size bytes (bounded by it: a
// damaged hint cannot ask for much).
func (l *mailboxListing) reserve(files, nameBytes uint64, size int64) {
	limit := uint64(max(size, 0)) + 1024
	files, nameBytes = min(files+files/8, limit/8), min(nameBytes+nameBytes/8, limit)
	if uint64(cap(l.files)) < files {
		l.files = make([]listedFile, 0, files)
	}
	if uint64(cap(l.names)) < nameBytes {
		l.names = make([]byte, 0, nameBytes)
	}
}

// reset empties l for the next mailbox, keeping its memory.
func (l *mailboxListing) reset() {
	l.dirs, l.files, l.names, l.next, l.at = l.dirs[:0], l.files[:0], l.names[:0], 0, nil
}

// add notes a file.
func (l *mailboxListing) add(dir int, name []byte) {
	l.names = append(l.names, name...)
	l.files = append(l.files, listedFile{end: uint32(len(l.names)), dir: int32(dir), twin: -1})
}

// nameBytes returns the name of listed file i, in the buffer.
func (l *mailboxListing) nameBytes(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = l.files[i-1].end
	}
	return l.names[start:l.files[i].end]
}

// name returns the name of listed file i.
func (l *mailboxListing) name(i int) string { return string(l.nameBytes(i)) }

// match returns the position of the listed file the record of name
// stands for, and notes it found; false when no file of that name is
// left without a record.
func (l *mailboxListing) match(name string) (int, bool) {
	if i := l.next; i < len(l.files) && l.at == nil && string(l.nameBytes(i)) == name {
		l.next++
		l.files[i].found = true
		return i, true
	}
	if l.at == nil {
		l.at = make(map[string]int32, len(l.files))
		for i := range l.files {
			n := l.nameBytes(i)
			j, ok := l.at[string(n)]
			if !ok {
				l.at[string(n)] = int32(i)
				continue
			}
			for l.files[j].twin >= 0 {
				j = l.files[j].twin
			}
			l.files[j].twin = int32(i)
		}
	}
	i, ok := l.at[name]
	for ok && l.files[i].found {
		i = l.files[i].twin
		ok = i >= 0
	}
	if !ok {
		return 0, false
	}
	l.files[i].found = true
	return int(i), true
}

// ref returns the path under the root of listed file i.
func (l *mailboxListing) ref(i int) string {
	return l.dirs[l.files[i].dir].rel + string(filepath.Separator) + string(l.nameBytes(i))
}

// writeIndexFile replaces path with the index made of the magic line,
// the hints records and nameBytes, the frames copy writes, and the end
// frame: a temporary file in the same folder (created 0700 if missing),
// renamed over it.
func writeIndexFile(path string, records, nameBytes int, copy func(w *os.File) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*"+tmpSuffix)
	if err != nil {
		return err
	}
	head := binary.AppendUvarint([]byte(indexMagic), uint64(records))
	_, err = f.Write(binary.AppendUvarint(head, uint64(nameBytes)))
	if err == nil {
		err = copy(f)
	}
	if err == nil {
		_, err = f.Write([]byte{0})
	}
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

// oldIndex is an agent's index file being read by Skim.
type oldIndex struct {
	f       *os.File
	size    int64 // of the file when opened
	r       *indexReader
	read    int   // records read and checked
	dropped []int // the records whose file is gone, ascending
}

// openIndex opens the index file at path for reading. It returns nil
// without one, and damaged when a file is there but is not an index of
// this version (it is to be rewritten even if the mailbox is empty).
func (s *Store) openIndex(path string) (old *oldIndex, damaged bool) {
	if path == "" {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, !errors.Is(err, fs.ErrNotExist)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, true
	}
	r, err := newIndexReader(f)
	if err != nil {
		s.opts.Logger.Debug("index of message summaries damaged; rebuilding it", "file", path, "err", err)
		_ = f.Close()
		return nil, true
	}
	return &oldIndex{f: f, size: info.Size(), r: r}, false
}

// next reads the next record (see indexReader.next).
func (o *oldIndex) next() (string, driver.Summary, error) {
	name, sum, err := o.r.next()
	if err == nil {
		o.read++
	}
	return name, sum, err
}

// drop notes that the file of the record read last is gone.
func (o *oldIndex) drop() { o.dropped = append(o.dropped, o.read-1) }

func (o *oldIndex) close() { _ = o.f.Close() }

// rewriteIndex writes the index at path anew: the records of old read
// and not dropped, copied as they are from the file still open (another
// process may have replaced it meanwhile), then the frames fresh; l is
// the listing they were matched with, whose size goes in the hints. A
// failure costs only speed: it is logged, and the next Skim reads the
// files again.
func (s *Store) rewriteIndex(path string, l *mailboxListing, old *oldIndex, fresh []byte) {
	err := writeIndexFile(path, len(l.files), len(l.names), func(w *os.File) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		if old != nil && old.read > len(old.dropped) {
			if _, err := old.f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			r, err := newIndexReader(old.f)
			if err != nil {
				return err
			}
			d := 0
			for k := range old.read {
				frame, _, err := r.frame()
				if err != nil {
					return err
				}
				if d < len(old.dropped) && old.dropped[d] == k {
					d++
					continue
				}
				if _, err := bw.Write(frame); err != nil {
					return err
				}
			}
		}
		if _, err := bw.Write(fresh); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		s.opts.Logger.Debug("index of message summaries not written", "file", path, "err", err)
	}
}
