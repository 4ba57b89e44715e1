package fsstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Pruner = (*Inbox)(nil)

// pruneFile is a handled message file that retention may remove.
type pruneFile struct {
	path string
	size int64
	mod  time.Time
}

// Prune implements driver.Pruner: it removes from processed/ and from
// archive/ (all its sub-folders) the message files older than the
// retention's age (by modification time, which is when the message was
// written), then the oldest ones until the folder's total is within its
// size; task folders left empty go too. One EventPruned per folder says
// how much was removed. It also sweeps the staging files that senders
// which died left in tmp/ (sweepStaging), so they go within a prune
// interval.
func (in *Inbox) Prune(ctx context.Context, r driver.Retention) (driver.PruneReport, error) {
	in.mu.Lock()
	closed := in.closed
	in.mu.Unlock()
	if closed {
		return driver.PruneReport{}, driver.ErrClosed
	}
	in.sweepStaging()  // orphans of senders that died since the inbox was opened
	in.tasks.mu.Lock() // the sweeps write archive/
	defer in.tasks.mu.Unlock()
	var total driver.PruneReport
	for _, f := range []struct {
		sub    string
		maxAge time.Duration
		max    int64
	}{
		{processedDir, r.ProcessedMaxAge, r.ProcessedMaxBytes},
		{archiveDir, r.ArchiveMaxAge, r.ArchiveMaxBytes},
	} {
		rep, err := in.pruneDir(ctx, f.sub, f.maxAge, f.max)
		total.Files += rep.Files
		total.Bytes += rep.Bytes
		if rep.Files > 0 {
			in.s.emit(driver.Event{Kind: driver.EventPruned, Agent: in.agent, Ref: f.sub,
				Reason: fmt.Sprintf("removed %d file(s), %d bytes, from %s/ (retention)", rep.Files, rep.Bytes, f.sub)})
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// pruneDir applies one bound to <agent>/<sub>.
func (in *Inbox) pruneDir(ctx context.Context, sub string, maxAge time.Duration, maxBytes int64) (driver.PruneReport, error) {
	var rep driver.PruneReport
	if maxAge <= 0 && maxBytes <= 0 {
		return rep, nil
	}
	root := filepath.Join(in.dir, sub)
	if err := checkDir(root); err != nil {
		return rep, nil // missing or not a real folder: nothing of ours to prune
	}
	var files []pruneFile
	var dirs []string
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if e.IsDir() {
			if path != root {
				dirs = append(dirs, path)
			}
			return nil
		}
		if !e.Type().IsRegular() || classify(e.Name()) != entryMessage {
			return nil
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, pruneFile{path: path, size: fi.Size(), mod: fi.ModTime()})
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("prune %s of %q: %w", sub, in.agent, err)
	}
	slices.SortFunc(files, func(a, b pruneFile) int {
		return cmp.Or(a.mod.Compare(b.mod), cmp.Compare(filepath.Base(a.path), filepath.Base(b.path)))
	})
	var size int64
	for _, f := range files {
		size += f.size
	}
	cutoff := in.s.opts.Now().Add(-maxAge)
	var errs []error
	for _, f := range files {
		old := maxAge > 0 && f.mod.Before(cutoff)
		over := maxBytes > 0 && size > maxBytes
		if !old && !over {
			break // sorted oldest first: the rest are newer and fit
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		size -= f.size
		rep.Files++
		rep.Bytes += f.size
	}
	slices.Reverse(dirs) // deepest first
	for _, d := range dirs {
		if base := filepath.Base(d); base == byTaskDir || base == orphanDir {
			continue
		}
		_ = os.Remove(d) // only succeeds when empty
	}
	if len(errs) > 0 {
		return rep, fmt.Errorf("prune %s of %q: %w", sub, in.agent, errors.Join(errs...))
	}
	return rep, nil
}
