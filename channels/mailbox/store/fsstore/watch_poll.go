package fsstore

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
)

// What a Watch does when fsnotify cannot watch a folder: it lists the
// inboxes every poll interval and reports the names that were not there
// the time before.

// startPolling switches the follower to scanning, once, with one notice.
// What waits in the inboxes now is not news.
func (w *follower) startPolling(err error) {
	if w.ticker != nil {
		return
	}
	every := w.s.opts.PollInterval
	w.notice(fmt.Sprintf("watch: fsnotify unavailable (%v); looking for new messages every %s instead", err, every))
	w.ticker = time.NewTicker(every)
	w.listed = map[string]map[string]bool{}
	for _, agent := range w.pollAgents() {
		w.listed[agent] = w.inboxNames(agent)
	}
}

// tick is the polling ticker's channel; nil (never ready) while fsnotify
// watches every folder.
func (w *follower) tick() <-chan time.Time {
	if w.ticker == nil {
		return nil
	}
	return w.ticker.C
}

// poll reports the messages that appeared since the last scan, all of an
// agent's when its folder is new.
func (w *follower) poll() {
	for _, agent := range w.pollAgents() {
		names := w.inboxNames(agent)
		before, known := w.listed[agent]
		w.listed[agent] = names
		for name := range names {
			if !known || !before[name] {
				w.report(agent, name)
			}
		}
	}
}

// pollAgents returns the agents the follower looks at.
func (w *follower) pollAgents() []string {
	if w.only != "" {
		return []string{w.only}
	}
	agents, err := w.s.Agents()
	if err != nil {
		w.s.opts.Logger.Warn("watch: cannot list the agents", "err", err)
	}
	return agents
}

// inboxNames returns the message names in agent's inbox (none when it has
// no inbox).
func (w *follower) inboxNames(agent string) map[string]bool {
	names := map[string]bool{}
	_ = eachEntry(filepath.Join(w.s.root, agent, inboxDir), func(e fs.DirEntry) {
		if classify(e.Name()) == entryMessage {
			names[e.Name()] = true
		}
	})
	return names
}
