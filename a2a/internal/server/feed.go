package server

import (
	"context"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// kind is what an update of a task says.
type kind int

const (
	// kindState is a task_update from the worker: a new state, a result.
	kindState kind = iota
	// kindNote is a plain message from the worker about the task.
	kindNote
	// kindQuestion is a request from the worker about the task: it
	// waits for an answer.
	kindQuestion
	// kindApproval is an approval the worker waits for.
	kindApproval
	// kindDecided is the decision of the approval the task waited for.
	kindDecided
)

// update is one thing that happened to a task's mailbox side, in the order
// it happened, waiting for the execution that turns it into A2A events.
type update struct {
	kind   kind
	state  envelope.TaskState // kindState
	parts  []envelope.Part
	reason string
	from   string
	// id is the mailbox message's id, or the approval's.
	id       string
	approval *agent.Approval // kindApproval, kindDecided (nil: it is gone)
	// done acknowledges the mailbox message, once what it said is stored
	// (nil for what the gateway saw itself: an approval).
	done func()
}

// feed holds one task's updates until an execution takes them.
type feed struct {
	queue []update
	ready chan struct{} // a token when the queue is not empty
	// active: an execution takes the updates; resuming: one was asked
	// for and has not begun.
	active, resuming bool
	// attached is closed when an execution attaches (nil: nobody waits).
	attached chan struct{}
}

// feeds are the tasks' feeds. When an update arrives for a task no
// execution works on (after a restart, or after input-required ended the
// last one), feeds asks resume to start one.
type feeds struct {
	resume func(a2a.TaskID)

	mu sync.Mutex
	m  map[a2a.TaskID]*feed
}

func newFeeds(resume func(a2a.TaskID)) *feeds {
	return &feeds{resume: resume, m: map[a2a.TaskID]*feed{}}
}

// getLocked returns the feed of id, made when missing.
func (fs *feeds) getLocked(id a2a.TaskID) *feed {
	f, ok := fs.m[id]
	if !ok {
		f = &feed{ready: make(chan struct{}, 1)}
		fs.m[id] = f
	}
	return f
}

// push queues u for task id, and has an execution resume the task when
// none takes its updates.
func (fs *feeds) push(id a2a.TaskID, u update) {
	fs.mu.Lock()
	f := fs.getLocked(id)
	f.queue = append(f.queue, u)
	signal(f.ready)
	start := fs.wantLocked(f)
	fs.mu.Unlock()
	if start {
		fs.resume(id)
	}
}

// ensure has an execution resume task id unless one works on it.
func (fs *feeds) ensure(id a2a.TaskID) {
	fs.mu.Lock()
	start := fs.wantLocked(fs.getLocked(id))
	fs.mu.Unlock()
	if start {
		fs.resume(id)
	}
}

// wantLocked marks f as resuming and reports whether to start an
// execution: none takes its updates, and none was asked for.
func (fs *feeds) wantLocked(f *feed) bool {
	if f.active || f.resuming {
		return false
	}
	f.resuming = true
	return true
}

// resumeFailed clears the request to resume id (the execution did not
// start: another runs, or the task ended).
func (fs *feeds) resumeFailed(id a2a.TaskID) {
	fs.mu.Lock()
	if f, ok := fs.m[id]; ok {
		f.resuming = false
	}
	fs.mu.Unlock()
}

// attach is called by an execution that takes task id's updates.
func (fs *feeds) attach(id a2a.TaskID) *feed {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f := fs.getLocked(id)
	f.active, f.resuming = true, false
	if f.attached != nil {
		close(f.attached)
		f.attached = nil
	}
	return f
}

// waitActive has an execution resume task id unless one works on it, and
// waits until one does or ctx ends.
func (fs *feeds) waitActive(ctx context.Context, id a2a.TaskID) error {
	fs.mu.Lock()
	f := fs.getLocked(id)
	if f.active {
		fs.mu.Unlock()
		return nil
	}
	if f.attached == nil {
		f.attached = make(chan struct{})
	}
	attached := f.attached
	start := fs.wantLocked(f)
	fs.mu.Unlock()
	if start {
		fs.resume(id)
	}
	select {
	case <-attached:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// detach is called when that execution ends, with the updates it took
// and did not turn into events (they go back to the front). When updates
// wait, another execution resumes the task.
func (fs *feeds) detach(id a2a.TaskID, back []update) {
	fs.mu.Lock()
	f := fs.getLocked(id)
	f.active = false
	if len(back) > 0 {
		f.queue = append(back, f.queue...)
		signal(f.ready)
	}
	start := len(f.queue) > 0 && fs.wantLocked(f)
	if !start && len(f.queue) == 0 && !f.resuming && f.attached == nil {
		delete(fs.m, id)
	}
	fs.mu.Unlock()
	if start {
		fs.resume(id)
	}
}

// drop acknowledges and forgets what waits for task id (it has ended).
func (fs *feeds) drop(id a2a.TaskID) {
	fs.mu.Lock()
	f, ok := fs.m[id]
	var queue []update
	if ok && !f.active {
		queue = f.queue
		if f.attached != nil {
			close(f.attached) // nobody will attach: the waiter finds the task ended
		}
		delete(fs.m, id)
	}
	fs.mu.Unlock()
	for _, u := range queue {
		if u.done != nil {
			u.done()
		}
	}
}

// next takes the next update of f, waiting for one until ctx ends.
func (fs *feeds) next(ctx context.Context, f *feed) (update, bool) {
	for {
		fs.mu.Lock()
		if len(f.queue) > 0 {
			u := f.queue[0]
			f.queue = f.queue[1:]
			if len(f.queue) > 0 {
				signal(f.ready)
			}
			fs.mu.Unlock()
			return u, true
		}
		fs.mu.Unlock()
		select {
		case <-f.ready:
		case <-ctx.Done():
			return update{}, false
		}
	}
}

// signal puts a token in c unless one is there.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
