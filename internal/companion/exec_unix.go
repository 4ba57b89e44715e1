//go:build unix

package companion

import (
	"fmt"
	"os"
	"syscall"
)

// Exec replaces this process with path, given args (without the program
// name) and this process's environment: the process id, its streams and
// the signals sent to it all stay the same. It returns only on failure,
// with exit status 1 after saying why on stderr.
func Exec(path string, args []string) int {
	err := syscall.Exec(path, append([]string{path}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "switchboard: start %s: %v\n", path, err)
	return 1
}
