package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// rawOps does n times the least a durable delivery must do, with plain
// system calls: create a temporary file exclusively, write payload,
// fsync it, hard-link it into a folder, fsync the folder, remove the
// temporary name. Without fsync it only writes and links. It returns the
// time each one took. This is the floor under the store's Deliver on this
// disk.
func rawOps(ctx context.Context, dir string, n int, payload []byte, fsync bool) ([]int64, error) {
	tmp, dst := filepath.Join(dir, "tmp"), filepath.Join(dir, "inbox")
	for _, d := range []string{tmp, dst} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	took := make([]int64, n)
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start := time.Now()
		name := strconv.Itoa(i) + ".msg.json"
		staging := filepath.Join(tmp, name+".tmp")
		if err := writeFile(staging, payload, fsync); err != nil {
			return nil, err
		}
		if err := os.Link(staging, filepath.Join(dst, name)); err != nil {
			return nil, err
		}
		if fsync {
			if err := syncDir(dst); err != nil {
				return nil, err
			}
		}
		if err := os.Remove(staging); err != nil {
			return nil, err
		}
		took[i] = int64(time.Since(start))
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
