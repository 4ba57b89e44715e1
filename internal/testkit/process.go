package testkit

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"testing"
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

// Process is a running helper process whose standard output is read, a
// line at a time, into Lines.
type Process struct {
	Cmd   *exec.Cmd
	Stdin io.WriteCloser // closing it asks a helper to stop, as the helpers here read
	Lines *Log[string]   // its standard output
	Err   *Buffer        // its standard error
	name  string         // for the log of a failed test
}

// StartProcess starts cmd (usually a HelperCommand) with pipes to its
// standard input and output. The test's end kills it, and logs its
// standard error when the test failed.
func StartProcess(t testing.TB, name string, cmd *exec.Cmd) *Process {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{Cmd: cmd, Stdin: stdin, Lines: NewLog[string](), Err: &Buffer{}, name: name}
	cmd.Stderr = p.Err
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		for sc := bufio.NewScanner(stdout); sc.Scan(); {
			p.Lines.Add(sc.Text())
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s stderr:\n%s", p.name, p.Err.String())
		}
	})
	return p
}
