package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// msgSuffix ends the name of every message file (nanobot's format).
const msgSuffix = ".msg.json"

// inboxOf and processedOf are the receiver's folders under a root.
func inboxOf(root string) string     { return filepath.Join(root, receiverID, "inbox") }
func processedOf(root string) string { return filepath.Join(root, receiverID, "processed") }

// copyTree copies the receiver's waiting messages from the tree at src
// into a fresh tree at dst (inbox/ with the files, processed/ empty), so
// that every contender drains the same files.
func copyTree(src, dst string) error {
	in, out := inboxOf(dst), processedOf(dst)
	for _, d := range []string{filepath.Dir(in), in, out} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	names, err := messageNames(inboxOf(src))
	if err != nil {
		return err
	}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(inboxOf(src), name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(in, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// messageNames lists the message files in dir, in no particular order.
func messageNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	all, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	names := all[:0]
	for _, name := range all {
		if strings.HasSuffix(name, msgSuffix) {
			names = append(names, name)
		}
	}
	return names, nil
}

// checkDrained reports an error unless every one of the n messages of the
// tree at root is in processed/ and none is left in inbox/.
func checkDrained(root string, n int) error {
	left, err := messageNames(inboxOf(root))
	if err != nil {
		return err
	}
	done, err := messageNames(processedOf(root))
	if err != nil {
		return err
	}
	if len(left) != 0 || len(done) != n {
		return fmt.Errorf("after the drain: %d messages in processed/ and %d left in inbox/, want %d and 0",
			len(done), len(left), n)
	}
	return nil
}

// rawDrain is the least a drain can do: list inbox/ once, then rename
// each file into processed/ by name, with read also reading the file
// first (what a receiver cannot skip: it hands the message on). every > 0
// fsyncs processed/ after each every renames (and once after the last);
// 0 never fsyncs.
func rawDrain(ctx context.Context, root string, every int, read bool) (time.Duration, error) {
	in, out := inboxOf(root), processedOf(root)
	start := time.Now()
	names, err := messageNames(in)
	if err != nil {
		return 0, err
	}
	var dir *os.File
	if every > 0 {
		if dir, err = os.Open(out); err != nil {
			return 0, err
		}
		defer dir.Close()
	}
	pending := 0
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if read {
			if data, err := os.ReadFile(filepath.Join(in, name)); err != nil || len(data) == 0 {
				return 0, fmt.Errorf("read %s: %d bytes, %v", name, len(data), err)
			}
		}
		if err := os.Rename(filepath.Join(in, name), filepath.Join(out, name)); err != nil {
			return 0, err
		}
		if pending++; every > 0 && pending == every {
			if err := dir.Sync(); err != nil {
				return 0, err
			}
			pending = 0
		}
	}
	if every > 0 && pending > 0 {
		if err := dir.Sync(); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// fileSize is the size of dir/name in bytes.
func fileSize(dir, name string) (int, error) {
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		return 0, err
	}
	return int(fi.Size()), nil
}
