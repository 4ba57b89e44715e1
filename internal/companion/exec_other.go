//go:build !unix

package companion

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Exec runs path with args (without the program name) as a child sharing
// this process's streams and environment, and returns its exit status
// (this platform cannot replace a process). An interrupt reaches both
// through the console; this process waits for the child to end.
func Exec(path string, args []string) int {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "switchboard: start %s: %v\n", path, err)
	return 1
}
