package fsstore

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Folders under an agent's archive/.
const (
	byTaskDir = "by-task" // archive/by-task/<task>/: the messages of ended tasks
	orphanDir = "orphan"  // archive/orphan/: what doctor --fix moved out of a dead agent's inbox
)

var _ driver.TaskSweeper = (*Inbox)(nil)

// safeTaskDir matches task ids usable as a folder name as they are. It is
// compiled on first use: its repetition makes it costly, and every
// program that links this package would pay at start.
var safeTaskDir = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
})

// TaskDir returns the folder name of task id under archive/by-task/: the
// id itself when it is a safe name, else "x-" and a hash of it.
func TaskDir(id string) string {
	if safeTaskDir().MatchString(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "x-" + hex.EncodeToString(sum[:16])
}

// taskIndex maps task ids to the names in processed/ of their messages.
// It is built by one pass over processed/ at the first sweep and kept up
// to date by Ack.
type taskIndex struct {
	mu     sync.Mutex // also serialises sweeps and prunes: the writers of archive/
	built  bool
	byTask map[string][]string
}

// noteAcked records that the message of task taskID is now processed/name.
func (in *Inbox) noteAcked(taskID, name string) {
	if taskID == "" {
		return
	}
	in.tasks.mu.Lock()
	defer in.tasks.mu.Unlock()
	if in.tasks.built {
		in.tasks.byTask[taskID] = append(in.tasks.byTask[taskID], name)
	}
}

// SweepTask implements driver.TaskSweeper: it moves the messages of task
// taskID from processed/ to archive/by-task/<TaskDir(taskID)>/ (keeping
// their names) and reports each as EventSwept. Pending and claimed
// messages stay where they are: they are not handled yet.
func (in *Inbox) SweepTask(ctx context.Context, taskID string) (int, error) {
	if taskID == "" {
		return 0, errors.New("sweep task: empty task id")
	}
	in.mu.Lock()
	closed := in.closed
	in.mu.Unlock()
	if closed {
		return 0, driver.ErrClosed
	}
	in.tasks.mu.Lock()
	defer in.tasks.mu.Unlock()
	if !in.tasks.built {
		if err := in.buildTaskIndex(ctx); err != nil {
			return 0, err
		}
	}
	names := slices.Clone(in.tasks.byTask[taskID])
	slices.Sort(names) // file-name order: the order they were sent in
	delete(in.tasks.byTask, taskID)
	if len(names) == 0 {
		return 0, nil
	}
	sub := filepath.Join(archiveDir, byTaskDir, TaskDir(taskID))
	dst := filepath.Join(in.dir, sub)
	for _, d := range []string{archiveDir, filepath.Join(archiveDir, byTaskDir), sub} {
		if err := ensureDir(filepath.Join(in.dir, d)); err != nil {
			return 0, fmt.Errorf("sweep task %s: %w", taskID, err)
		}
	}
	moved := 0
	src := filepath.Join(in.dir, processedDir)
	for _, name := range names {
		msg, err := readMessage(filepath.Join(src, name), in.s.opts.MaxMessageBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue // pruned meanwhile
		}
		got, err := moveFree(src, name, dst)
		if err != nil {
			return moved, fmt.Errorf("sweep task %s: move %s: %w", taskID, name, err)
		}
		moved++
		ev := messageEvent(driver.EventSwept, in.agent, msg, filepath.Join(sub, got))
		if msg == nil {
			ev.TaskID = taskID
		}
		in.s.emit(ev)
	}
	if moved > 0 && !in.s.opts.NoSync {
		if err := errors.Join(syncDir(dst), syncDir(src)); err != nil {
			return moved, fmt.Errorf("sweep task %s: sync: %w", taskID, err)
		}
	}
	return moved, nil
}

// buildTaskIndex reads every message in processed/ once. The caller holds
// in.tasks.mu.
func (in *Inbox) buildTaskIndex(ctx context.Context) error {
	idx := map[string][]string{}
	dir := filepath.Join(in.dir, processedDir)
	var ctxErr error
	err := eachEntry(dir, func(e fs.DirEntry) {
		if ctxErr != nil || !e.Type().IsRegular() || classify(e.Name()) != entryMessage {
			return
		}
		if ctxErr = ctx.Err(); ctxErr != nil {
			return
		}
		msg, err := readMessage(filepath.Join(dir, e.Name()), in.s.opts.MaxMessageBytes)
		if err == nil && msg.TaskOf() != "" {
			idx[msg.TaskOf()] = append(idx[msg.TaskOf()], e.Name())
		}
	})
	if ctxErr != nil {
		return ctxErr
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("index processed messages of %q: %w", in.agent, err)
	}
	in.tasks.byTask, in.tasks.built = idx, true
	return nil
}

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
