package fsstore

import (
	"sync"
)

// inboxSyncs shares the fsync of a recipient's inbox folder among the
// Delivers of one Store that link into it at the same time (group
// commit, see groupCommit): each Deliver links its message in, then
// waits for a sync of the folder that started after its link. The first
// one finding no sync running starts one at once; those that link while
// it runs are served together by the next, one fsync for all of them
// (up to maxUnsynced waiting). A lone Deliver pays what it paid without
// grouping; N concurrent Delivers to one inbox pay a few folder fsyncs
// instead of N. Each inbox has a group of its own, so deliveries to
// different inboxes sync in parallel. A failed sync is the error of
// every Deliver it was to serve.
type inboxSyncs struct {
	groups sync.Map // inbox folder path -> *inboxGroup

	// target makes the syncTarget of an inbox folder; nil: fsync by
	// path. Tests replace it to count or fail the syncs.
	target func(inbox string) syncTarget
}

// inboxGroup is the group commit of one inbox folder and what it syncs.
type inboxGroup struct {
	commit *groupCommit
	target syncTarget
}

// dirByPath is a folder fsynced by path (opened for each sync).
type dirByPath string

func (d dirByPath) syncNow() error { return syncDir(string(d)) }

// sync returns once a fsync of the inbox folder at path that started
// after the call has ended, with its error.
func (x *inboxSyncs) sync(inbox string) error {
	g := x.group(inbox)
	done := make(chan error, 1)
	g.commit.submit(true, nil, func(err error) { done <- err }, g.target)
	return <-done
}

// group returns the group of the inbox folder at path, made on first use.
func (x *inboxSyncs) group(inbox string) *inboxGroup {
	if g, ok := x.groups.Load(inbox); ok {
		return g.(*inboxGroup)
	}
	g := &inboxGroup{commit: newGroupCommit(nil), target: dirByPath(inbox)}
	g.commit.window = 0 // a Deliver waits for every change: no window
	if x.target != nil {
		g.target = x.target(inbox)
	}
	actual, _ := x.groups.LoadOrStore(inbox, g)
	return actual.(*inboxGroup)
}
