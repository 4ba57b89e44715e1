package fsstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sync"

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
