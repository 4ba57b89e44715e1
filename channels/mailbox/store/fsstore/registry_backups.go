package fsstore

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// KeepCorruptRegistryCopies is how many copies of a corrupt registry
// (_registry.json.corrupt-<unix>[-<n>]) the store keeps: each new copy
// removes the older ones beyond it. Beside nanobot's unlocked writer the
// registry can be torn many times a minute; the newest copies say enough.
const KeepCorruptRegistryCopies = 3

// corruptPrefix starts the name of each copy of a corrupt registry.
const corruptPrefix = registryName + ".corrupt-"

// copyName is a copy of a corrupt registry with the parts of its name.
type copyName struct {
	name string
	unix int64 // the second it was made
	n    int   // its counter within that second (1 for none)
	mod  time.Time
}

// CorruptRegistryCopies returns the names of the copies of a corrupt
// registry in root, newest first: by modification time, then by the
// second and the counter in the name (a counter freed by a removal is
// used again, so it alone does not say which is newer). Other names are
// not listed.
func CorruptRegistryCopies(root string) ([]string, error) {
	copies, err := corruptCopies(root)
	names := make([]string, len(copies))
	for i, c := range copies {
		names[i] = c.name
	}
	return names, err
}

// PruneCorruptRegistryCopies removes all but the keep newest copies of a
// corrupt registry in root and returns how many it removed. A copy
// removed meanwhile by another process counts as removed.
func PruneCorruptRegistryCopies(root string, keep int) (int, error) {
	copies, err := corruptCopies(root)
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, c := range copies[min(max(keep, 0), len(copies)):] {
		if err := os.Remove(filepath.Join(root, c.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// corruptCopies lists the copies in root, newest first.
func corruptCopies(root string) ([]copyName, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var copies []copyName
	for _, e := range ents {
		c, ok := parseCopyName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			c.mod = fi.ModTime()
			copies = append(copies, c)
		}
	}
	slices.SortFunc(copies, func(a, b copyName) int {
		return cmp.Or(b.mod.Compare(a.mod), cmp.Compare(b.unix, a.unix), cmp.Compare(b.n, a.n))
	})
	return copies, nil
}

// parseCopyName reads "_registry.json.corrupt-<unix>[-<n>]".
func parseCopyName(name string) (copyName, bool) {
	rest, ok := strings.CutPrefix(name, corruptPrefix)
	if !ok {
		return copyName{}, false
	}
	sec, counter, hasCounter := strings.Cut(rest, "-")
	c := copyName{name: name, n: 1}
	var err error
	if c.unix, err = strconv.ParseInt(sec, 10, 64); err != nil {
		return copyName{}, false
	}
	if hasCounter {
		if c.n, err = strconv.Atoi(counter); err != nil {
			return copyName{}, false
		}
	}
	return c, true
}
