package config

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxFileBytes caps the configuration file (4 MiB): a real one is a few
// KiB, and a larger one is a mistake (a wrong path, a device) that must
// not fill memory.
const MaxFileBytes = 4 << 20

// readConfigFile reads the regular file at path, at most MaxFileBytes. It
// opens without blocking, so a FIFO named by mistake is an error at once
// rather than a wait for a writer, and refuses a FIFO, device, socket or
// folder before reading a byte. A missing file is an error wrapping
// fs.ErrNotExist.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file; name a JSON file (--config FILE)",
			path, fileKind(fi.Mode()))
	}
	tooBig := fmt.Errorf("%s is larger than %d MiB, the cap of a configuration file; name the right file (--config FILE)",
		path, MaxFileBytes>>20)
	if fi.Size() > MaxFileBytes {
		return nil, tooBig
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxFileBytes { // grew while being read
		return nil, tooBig
	}
	return data, nil
}

// fileKind names a file type that is not a regular file, for an error.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file (" + m.Type().String() + ")"
}
