package testkit

import (
	"os"
	"os/exec"
)

// HelperCommand returns a command that runs the test binary again with
// only test (a TestX function that acts as a helper process when its
// environment says so) and the environment of this process plus env
// ("KEY=value"): a second process of the code under test, for tests of
// what processes share (files, locks, crashes).
func HelperCommand(test string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}
