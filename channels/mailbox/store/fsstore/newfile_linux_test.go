package fsstore

import "golang.org/x/sys/unix"

// newFileFallbacks are createNew taking each of its fallbacks: a file
// system without O_TMPFILE (an open of the folder for writing fails with
// EISDIR, as there), and no /proc to link the file in through.
var newFileFallbacks = map[string]func(dir, name string, data []byte) error{
	"without O_TMPFILE": func(dir, name string, data []byte) error {
		return createNewVia(dir, name, data, 0, "/proc/self/fd/")
	},
	"without /proc": func(dir, name string, data []byte) error {
		return createNewVia(dir, name, data, unix.O_TMPFILE, "/nonexistent/fd/")
	},
}
