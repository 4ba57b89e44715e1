package fsstore

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

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
