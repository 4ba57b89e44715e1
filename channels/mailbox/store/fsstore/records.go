package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// approvalsDir is the folder under the root that holds the records of the
// store's approval shelves: <id>.json, an approval's question
// (driver.ShelfApprovals), and <id>.decision.json, its decision
// (driver.ShelfDecisions). nanobot ignores it, and no agent id can start
// with '_'.
const approvalsDir = "_approvals"

var _ driver.Records = (*Store)(nil)

// place is where the records of one shelf are: a folder (and the folders
// above it, up to the root, that must be real folders too) and the suffix
// of their file names.
type place struct {
	dirs   []string // from the outermost to the folder of the records
	suffix string
}

// dir is the folder that holds the records.
func (p place) dir() string { return p.dirs[len(p.dirs)-1] }

// path is the file of key.
func (p place) path(key string) string { return filepath.Join(p.dir(), key+p.suffix) }

// shelfPlace returns where the records of shelf are, after checking it:
// an agent's in <root>/<agent>/state/<key>.json; the approvals in
// <root>/_approvals/<id>.json and their decisions in
// <root>/_approvals/<id>.decision.json; another store shelf _x in
// <root>/_x/<key>.json.
func (s *Store) shelfPlace(shelf string) (place, error) {
	if err := driver.CheckShelf(shelf); err != nil {
		return place{}, err
	}
	switch {
	case shelf == driver.ShelfApprovals:
		return place{dirs: []string{filepath.Join(s.root, approvalsDir)}, suffix: ".json"}, nil
	case shelf == driver.ShelfDecisions:
		return place{dirs: []string{filepath.Join(s.root, approvalsDir)}, suffix: ".decision.json"}, nil
	case driver.IsStoreShelf(shelf):
		return place{dirs: []string{filepath.Join(s.root, shelf)}, suffix: ".json"}, nil
	}
	agent := filepath.Join(s.root, shelf)
	return place{dirs: []string{agent, filepath.Join(agent, stateDir)}, suffix: ".json"}, nil
}

// recordPath checks r and returns its place and file.
func (s *Store) recordPath(r driver.Record) (place, string, error) {
	if err := s.checkOpen(); err != nil {
		return place{}, "", err
	}
	if err := driver.CheckRecordKey(r.Key); err != nil {
		return place{}, "", err
	}
	p, err := s.shelfPlace(r.Shelf)
	if err != nil {
		return place{}, "", err
	}
	return p, p.path(r.Key), nil
}

// checkPlace checks that the folders of p are real folders (not symlinks
// out of the tree), and that a store shelf's is private. A folder that is
// not there fails with fs.ErrNotExist.
func checkPlace(p place) error {
	for _, dir := range p.dirs {
		if err := checkDir(dir); err != nil {
			return err
		}
	}
	if len(p.dirs) == 1 {
		return checkPrivate(p.dir())
	}
	return nil
}

// makePlace creates the folders of p (mode 0700) as needed, refusing any
// that is a symlink, something other than a folder, or open to others.
func makePlace(p place) error {
	for _, dir := range p.dirs {
		if err := ensureDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// LoadRecord implements driver.Records: the record's file, which must be a
// regular file (not a symlink, not a FIFO) no larger than 16 messages.
func (s *Store) LoadRecord(_ context.Context, r driver.Record) ([]byte, error) {
	p, path, err := s.recordPath(r)
	if err != nil {
		return nil, err
	}
	if err := checkPlace(p); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("record %s: %w", r, driver.ErrNoRecord)
	} else if err != nil {
		return nil, fmt.Errorf("load record %s: %w", r, err)
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("record %s: %w", r, driver.ErrNoRecord)
	}
	if err != nil {
		return nil, fmt.Errorf("load record %s: %w", r, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("load record %s: %s is not a regular file", r, path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, fmt.Errorf("load record %s: %w", r, err)
	}
	defer f.Close()
	data, err := readAllCapped(f, s.opts.MaxMessageBytes*16)
	if err != nil {
		return nil, fmt.Errorf("load record %s: %s: %w", r, path, err)
	}
	return data, nil
}

// SaveRecord implements driver.Records: a temp file in the same folder,
// synced, then renamed over the record. The folders are created as needed
// and refused if they are symlinks.
func (s *Store) SaveRecord(_ context.Context, r driver.Record, data []byte) error {
	p, path, err := s.recordPath(r)
	if err != nil {
		return err
	}
	if err := makePlace(p); err != nil {
		return fmt.Errorf("save record %s: %w", r, err)
	}
	if err := writeFileAtomic(path, data, !s.opts.NoSync); err != nil {
		return fmt.Errorf("save record %s: %s: %w", r, path, err)
	}
	return nil
}

// CreateRecord implements driver.Records: a temp file beside the record,
// linked to its name, which fails if the name exists: of two writers, one
// wins whole.
func (s *Store) CreateRecord(_ context.Context, r driver.Record, data []byte) error {
	p, path, err := s.recordPath(r)
	if err != nil {
		return err
	}
	if err := makePlace(p); err != nil {
		return fmt.Errorf("create record %s: %w", r, err)
	}
	err = s.createExclusive(path, data)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create record %s: %w", r, driver.ErrRecordExists)
	}
	if err != nil {
		return fmt.Errorf("create record %s: %w", r, err)
	}
	return nil
}

// createExclusive writes data to a temp file beside path and links it to
// path, which fails if path exists: of two writers, one wins whole.
func (s *Store) createExclusive(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, "."+filepath.Base(path)+"."+uuid.NewString()+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil && !s.opts.NoSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	if !s.opts.NoSync {
		return syncDir(dir)
	}
	return nil
}

// DeleteRecord implements driver.Records.
func (s *Store) DeleteRecord(_ context.Context, r driver.Record) error {
	p, path, err := s.recordPath(r)
	if err != nil {
		return err
	}
	if err := checkPlace(p); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("delete record %s: %w", r, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete record %s: %w", r, err)
	}
	return nil
}

// ListRecords implements driver.Records: the names in the shelf's folder
// that end in its suffix and whose rest is a valid key (which leaves out
// temp files, and the decisions beside the approvals: a key has no '.').
func (s *Store) ListRecords(ctx context.Context, shelf string) ([]string, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	p, err := s.shelfPlace(shelf)
	if err != nil {
		return nil, err
	}
	if err := checkPlace(p); errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	} else if err != nil {
		return nil, fmt.Errorf("list records of %s: %w", shelf, err)
	}
	entries, err := os.ReadDir(p.dir())
	if err != nil {
		return nil, fmt.Errorf("list records of %s: %w", shelf, err)
	}
	keys := []string{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		key, ok := strings.CutSuffix(e.Name(), p.suffix)
		if ok && driver.CheckRecordKey(key) == nil {
			keys = append(keys, key)
		}
	}
	return keys, nil // os.ReadDir sorts by name
}

var _ driver.RecordUpdater = (*Store)(nil)

// UpdateRecord implements driver.RecordUpdater: under an exclusive lock
// on the record's lock file (.<key>.lock beside it), the record is read,
// update computes the new one, and it replaces the record by a rename
// (or the record is removed), so readers without the lock see the old
// record or the new one whole.
func (s *Store) UpdateRecord(ctx context.Context, r driver.Record, update func(old []byte) ([]byte, error)) ([]byte, error) {
	p, path, err := s.recordPath(r)
	if err != nil {
		return nil, err
	}
	if err := makePlace(p); err != nil {
		return nil, fmt.Errorf("update record %s: %w", r, err)
	}
	unlock, err := lockFile(ctx, filepath.Join(p.dir(), "."+r.Key+".lock"))
	if err != nil {
		return nil, fmt.Errorf("update record %s: %w", r, err)
	}
	defer unlock()
	old, err := s.LoadRecord(ctx, r)
	if errors.Is(err, driver.ErrNoRecord) {
		old, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	data, err := update(old)
	if err != nil {
		return nil, err
	}
	if data == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("update record %s: %w", r, err)
		}
		return nil, nil
	}
	if err := writeFileAtomic(path, data, !s.opts.NoSync); err != nil {
		return nil, fmt.Errorf("update record %s: %s: %w", r, path, err)
	}
	return data, nil
}
