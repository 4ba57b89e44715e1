package cli

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubcommandNames: every entry of subcommands builds the command of its
// name, and the whole tree holds exactly those (with help and completion).
func TestSubcommandNames(t *testing.T) {
	t.Parallel()
	a := &app{}
	var names []string
	for _, s := range a.subcommands() {
		assert.Equal(t, s.name, s.build().Name(), "the entry's name is its command's")
		names = append(names, s.name)
	}
	var tree []string
	for _, c := range a.rootCommand("").Commands() {
		tree = append(tree, c.Name())
	}
	assert.ElementsMatch(t, append(names, "completion"), tree, "help is the root's help command, not a child")
	assert.NotEmpty(t, a.rootCommand("").Commands())
}

// TestNamedCommandBuildsItsBranch: a command named on the command line is
// built alone, and is the same command as in the whole tree: the same
// path, flags (its own and inherited) and sub-commands. Help, completion,
// an unknown name and no name get the whole tree.
func TestNamedCommandBuildsItsBranch(t *testing.T) {
	t.Parallel()
	full := (&app{}).rootCommand("")
	for _, s := range (&app{}).subcommands() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			root := (&app{}).rootCommand(s.name)
			var kids []string
			for _, c := range root.Commands() {
				kids = append(kids, c.Name())
			}
			assert.ElementsMatch(t, []string{s.name, "completion"}, kids)
			got, _, err := root.Find([]string{s.name})
			require.NoError(t, err)
			// A tree of its own: flag look-ups change the commands.
			want, _, err := (&app{}).rootCommand("").Find([]string{s.name})
			require.NoError(t, err)
			assert.Equal(t, describe(want), describe(got))
		})
	}
	for _, name := range []string{"", "help", "completion", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd, "sned", "--help"} {
		assert.Len(t, (&app{}).rootCommand(name).Commands(), len(full.Commands()), "%q gets the whole tree", name)
	}
}

// describe lists what a user sees of cmd and its sub-commands: paths,
// usage lines and flags with their defaults and help.
func describe(cmd *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		out = append(out, "command "+c.CommandPath()+": "+c.UseLine()+" | "+c.Short)
		flag := func(f *pflag.Flag) {
			out = append(out, c.CommandPath()+" --"+f.Name+" -"+f.Shorthand+" "+f.DefValue+": "+f.Usage)
		}
		c.LocalFlags().VisitAll(flag)
		c.InheritedFlags().VisitAll(flag)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cmd)
	slices.Sort(out)
	return out
}

// TestHelpOfNamedCommand: `X --help`, which builds X alone, prints what
// it prints with the whole tree built.
func TestHelpOfNamedCommand(t *testing.T) {
	for _, s := range (&app{}).subcommands() {
		code, alone, errOut := runMain(t, s.name, "--help")
		assert.Equal(t, ExitOK, code, s.name)
		assert.Empty(t, errOut, s.name)
		var whole bytes.Buffer
		root := (&app{env: Env{Stdout: &whole, Stderr: &whole}}).rootCommand("")
		root.SetArgs([]string{s.name, "--help"})
		root.SetOut(&whole)
		require.NoError(t, root.Execute())
		assert.Equal(t, whole.String(), alone, s.name)
	}
}

// TestVersionAlone: version, --version and -v print the version line
// without the command tree, as they did with it; with anything more they
// go through the tree.
func TestVersionAlone(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		assert.True(t, IsVersion(args), args)
		code, out, errOut := runMain(t, args...)
		assert.Equal(t, ExitOK, code, args)
		assert.Equal(t, (&app{env: Env{Version: "1.2.3"}}).versionLine(), out, args)
		assert.Empty(t, errOut, args)
	}
	for _, args := range [][]string{nil, {}, {"version", "x"}, {"--root", "r", "version"}, {"-v", "-h"}, {"versions"}} {
		assert.False(t, IsVersion(args), args)
	}
	code, _, errOut := runMain(t, "version", "x")
	assert.Equal(t, ExitUsage, code)
	assert.Equal(t, "switchboard: unexpected argument \"x\"; run 'switchboard help version'\n", errOut)
	code, out, _ := runMain(t, "-v", "-h")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "Available Commands:", "-v with -h is help")
}

// failWriter fails every write with err.
type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// TestVersionWriteErrors: the version command fails when its line cannot
// be written, but for a reader that went away (EPIPE); the flag, printed
// as help is, does not fail.
func TestVersionWriteErrors(t *testing.T) {
	t.Parallel()
	disk := errors.New("no space left on device")
	var errOut strings.Builder
	a := &app{env: Env{Stdout: failWriter{disk}, Stderr: &errOut}}
	assert.Equal(t, ExitFailure, a.printVersion(true))
	assert.Equal(t, "switchboard: no space left on device\n", errOut.String())
	assert.Equal(t, ExitOK, a.printVersion(false), "--version")
	a.env.Stdout = failWriter{&pathErr{syscall.EPIPE}}
	assert.Equal(t, ExitOK, a.printVersion(true), "EPIPE")
	a.env.Stdout = io.Discard
	assert.Equal(t, ExitOK, a.printVersion(true))
}

// pathErr wraps an errno as the os package's write errors do.
type pathErr struct{ err error }

func (e *pathErr) Error() string { return "write /dev/stdout: " + e.err.Error() }
func (e *pathErr) Unwrap() error { return e.err }
