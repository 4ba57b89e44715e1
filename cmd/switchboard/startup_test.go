package main_test

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVersionAlone: the version line, which the program prints before it
// sets up signal handling, is the same for version, --version and -v, and
// a reader that went away ends the command with status 0, as for every
// other command (EPIPE, not SIGPIPE).
func TestVersionAlone(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.global = []string{}
	want := "switchboard " + testVersion + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, arg := range []string{"version", "--version", "-v"} {
		r := s.run(arg)
		assert.Equal(t, 0, r.code, arg)
		assert.Equal(t, want, r.stdout, arg)
		assert.Empty(t, r.stderr, arg)
	}

	for _, args := range [][]string{{"version"}, {"--root", s.root, "version"}} {
		read, write, err := os.Pipe()
		require.NoError(t, err)
		require.NoError(t, read.Close())
		cmd := s.command(t.Context(), args...)
		cmd.Stdout = write
		err = cmd.Run()
		require.NoError(t, write.Close())
		assert.NoError(t, err, "%v to a closed pipe: exit status 0, no SIGPIPE", args)
	}
}

// initLine is one package's line of GODEBUG=inittrace=1.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestPackagesInitLittle: no package of this module does work worth the
// name when the program starts (Go runs the initialisers of every linked
// package before main, for every command): a regular expression, a table
// or a map of any size is made on first use (sync.OnceValue), not at
// package level. Allocations, not time, are checked: they are the same at
// every run.
func TestPackagesInitLittle(t *testing.T) {
	t.Parallel()
	const maxBytes = 2048
	s := newSandbox(t)
	s.global = []string{}
	cmd := s.command(t.Context(), "version")
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run())
	ours := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		m := initLine.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(m[1], "github.com/switchboard-dev/switchboard") {
			continue
		}
		ours++
		bytes, err := strconv.Atoi(m[2])
		require.NoError(t, err)
		assert.LessOrEqual(t, bytes, maxBytes, "%s allocates %s bytes in %s allocations when the program starts: make it on first use", m[1], m[2], m[3])
	}
	assert.NotZero(t, ours, "inittrace lists the packages of this module:\n%s", stderr.String())
}

// switchboard runs no text/template: cobra's version and usage templates
// would make the linker keep every exported method of every type.
func TestNoTemplates(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	require.NoError(t, err)
	assert.NotContains(t, string(out), "text/template.(*state).evalField")
}
