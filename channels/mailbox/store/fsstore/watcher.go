package fsstore

import (
	"errors"
	"log/slog"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher pokes a channel whenever a folder may have gained a file: on an
// fsnotify Create, on an event overflow (which means "rescan"), and every
// poll interval as a safety net for what fsnotify misses (network file
// systems, no inotify instances left).
type watcher struct {
	fw   *fsnotify.Watcher // nil when fsnotify is unavailable
	quit chan struct{}
	done chan struct{}
}

// startWatcher watches dir and pokes notify (without ever blocking on it)
// until stop.
func startWatcher(dir string, every time.Duration, notify chan<- struct{}, log *slog.Logger) *watcher {
	w := &watcher{quit: make(chan struct{}), done: make(chan struct{})}
	fw, err := fsnotify.NewWatcher()
	if err == nil {
		if err = fw.Add(dir); err != nil {
			fw.Close()
		}
	}
	if err != nil {
		log.Warn("fsnotify unavailable; new messages are noticed by the periodic rescan only",
			"dir", dir, "every", every, "err", err)
		fw = nil
	}
	w.fw = fw
	var events <-chan fsnotify.Event
	var errs <-chan error
	if fw != nil {
		events, errs = fw.Events, fw.Errors
	}
	go w.run(events, errs, every, notify, log)
	return w
}

// run pokes notify for each Create event, each error (an overflow means
// "rescan") and each tick, until quit. Nil channels are never ready.
func (w *watcher) run(events <-chan fsnotify.Event, errs <-chan error, every time.Duration,
	notify chan<- struct{}, log *slog.Logger) {
	defer close(w.done)
	poke := func() {
		select {
		case notify <- struct{}{}:
		default:
		}
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-w.quit:
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Has(fsnotify.Create) {
				poke()
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				log.Warn("fsnotify error; rescanning", "err", err)
			}
			poke()
		case <-tick.C:
			poke()
		}
	}
}

// rewatch watches dir again after it was removed and created anew.
func (w *watcher) rewatch(dir string, log *slog.Logger) {
	if w.fw == nil {
		return
	}
	if err := w.fw.Add(dir); err != nil {
		log.Warn("cannot watch the recreated folder; relying on the periodic rescan", "dir", dir, "err", err)
	}
}

// stop ends the watch and waits for it to be over.
func (w *watcher) stop() {
	close(w.quit)
	<-w.done
	if w.fw != nil {
		w.fw.Close()
	}
}
