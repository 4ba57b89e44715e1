package fsstore

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// tmpSuffix ends the names of files still being written: nanobot's
// "X.msg.tmp" in inbox/ and the temp files of writeFileAtomic. Readers
// leave them alone.
const tmpSuffix = ".tmp"

// entryKind is what a name in inbox/ or claimed/ is taken for.
type entryKind int

const (
	entryMessage entryKind = iota // a message file name: claim and read it
	entryWriting                  // a write in progress: leave it alone
	entryForeign                  // anything else: quarantine it
)

// classify decides by name alone; the type of the file is checked after
// the claim, through the claimed file itself.
func classify(name string) entryKind {
	switch {
	case strings.HasSuffix(name, envelope.MessageSuffix):
		return entryMessage
	case strings.HasSuffix(name, tmpSuffix):
		return entryWriting
	}
	return entryForeign
}

// randHex returns 2n random hex digits.
func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

// withSuffix makes name distinct while keeping it a message name (or the
// same kind of name) and sorting just after the original.
func withSuffix(name string) string {
	suffix := "_r" + randHex(4)
	if base, ok := strings.CutSuffix(name, envelope.MessageSuffix); ok {
		return base + suffix + envelope.MessageSuffix
	}
	return name + suffix
}

// moveFree renames dir/name into dstDir under name, or under a suffixed
// name if dstDir already holds that name, so that nothing is replaced:
// each try is one no-replace rename (renameNoReplace), no lookup first.
// It returns the name used.
func moveFree(dir, name, dstDir string) (string, error) {
	return freeName(name, dstDir, func(target string) error {
		return renamePaths(filepath.Join(dir, name), filepath.Join(dstDir, target))
	})
}

// moveFreeAt is moveFree relative to held folders.
func moveFreeAt(src *heldDir, name string, dst *heldDir) (string, error) {
	return freeName(name, dst.path, func(target string) error { return moveAt(src, name, dst, target) })
}

// freeName calls move with name, then with suffixed names while the target
// exists, and returns the name that move took.
func freeName(name, dstDir string, move func(target string) error) (string, error) {
	target := name
	for range 8 {
		err := move(target)
		if err == nil {
			return target, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		target = withSuffix(name)
	}
	return "", fmt.Errorf("move %s: no free name in %s", name, dstDir)
}

// readMessage reads and decodes the message file at path without following
// a symlink, without blocking on a FIFO and without reading more than limit
// bytes. The error text is the reason a receiver quarantines the file; an
// error wrapping fs.ErrNotExist means the file is gone.
func readMessage(path string, limit int64) (*envelope.Message, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", typeName(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if errors.Is(err, syscall.ELOOP) {
			return nil, errors.New("not a regular file (symlink)")
		}
		return nil, fmt.Errorf("unreadable: %w", err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("unreadable: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", typeName(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("oversized: %d bytes > %d", fi.Size(), limit)
	}
	return envelope.Decode(f, limit)
}

// typeName names a non-regular file type for a quarantine reason.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}
