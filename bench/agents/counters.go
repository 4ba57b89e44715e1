package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
)

// warnCounter passes log lines on and counts those saying fsnotify is
// unavailable (an agent fell back to polling).
type warnCounter struct {
	out io.Writer
	mu  sync.Mutex
	n   int
}

func (w *warnCounter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += bytes.Count(p, []byte("fsnotify unavailable"))
	return w.out.Write(p)
}

func (w *warnCounter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// registryWrites counts how often _registry.json is replaced: every
// writer renames a new file in, which fsnotify reports as a Create. It
// uses an fsnotify watcher of its own (one more inotify instance, taken
// after the agents' were counted).
type registryWrites struct {
	fw   *fsnotify.Watcher
	n    atomic.Int64
	done chan struct{}
}

func countRegistryWrites(root string) (*registryWrites, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := fw.Add(root); err != nil {
		fw.Close()
		return nil, err
	}
	c := &registryWrites{fw: fw, done: make(chan struct{})}
	registry := filepath.Join(root, "_registry.json")
	go func() {
		defer close(c.done)
		for ev := range fw.Events {
			if ev.Name == registry && ev.Has(fsnotify.Create) {
				c.n.Add(1)
			}
		}
	}()
	go func() {
		for range fw.Errors {
		}
	}()
	return c, nil
}

// stop ends the count and returns it.
func (c *registryWrites) stop() int {
	c.fw.Close()
	<-c.done
	return int(c.n.Load())
}

// inotifyInstances counts the process's inotify instances (Linux: the
// anon_inode:inotify links in /proc/self/fd); -1 elsewhere.
func inotifyInstances() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && link == "anon_inode:inotify" {
			n++
		}
	}
	return n
}
