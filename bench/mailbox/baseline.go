package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// rawWriter does, with plain system calls, the least a durable delivery
// must do: create a temporary file exclusively, write the payload, fsync
// it, hard-link it into a folder, fsync the folder, remove the temporary
// name. Without fsync it only creates, writes, links and removes. This is
// the floor under the store's Deliver on a disk.
type rawWriter struct {
	tmp, dst string
	payload  []byte
	fsync    bool
	next     int
}

// newRawWriter makes the writer's folders under dir.
func newRawWriter(dir string, payload []byte, fsync bool) (*rawWriter, error) {
	w := &rawWriter{tmp: filepath.Join(dir, "tmp"), dst: filepath.Join(dir, "inbox"), payload: payload, fsync: fsync}
	for _, d := range []string{w.tmp, w.dst} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// op writes one more file and returns the time it took.
func (w *rawWriter) op() (time.Duration, error) {
	start := time.Now()
	name := strconv.Itoa(w.next) + ".msg.json"
	w.next++
	staging := filepath.Join(w.tmp, name+".tmp")
	if err := writeFile(staging, w.payload, w.fsync); err != nil {
		return 0, err
	}
	if err := os.Link(staging, filepath.Join(w.dst, name)); err != nil {
		return 0, err
	}
	if w.fsync {
		if err := syncDir(w.dst); err != nil {
			return 0, err
		}
	}
	if err := os.Remove(staging); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// rawOps does n raw operations in a row in dir and returns the time each
// took.
func rawOps(ctx context.Context, dir string, n int, payload []byte, fsync bool) ([]int64, error) {
	w, err := newRawWriter(dir, payload, fsync)
	if err != nil {
		return nil, err
	}
	took := make([]int64, n)
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := w.op()
		if err != nil {
			return nil, err
		}
		took[i] = int64(d)
	}
	return took, nil
}

// writeFile creates path exclusively and writes data, synced if asked.
func writeFile(path string, data []byte, fsync bool) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && fsync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncDir fsyncs a folder, making the names in it durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
