package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/internal/stopsignal"
)

func (a *app) versionCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print the version of switchboard, the revision it was built from, and of Go",
		Long: `Version prints the program's version (set at build time with -ldflags
"-X main.version=1.2.3", else the module's version as go install or go
build recorded it), the Go version and platform, and, when the build
recorded them, the VCS revision it was built from, its time, and whether
the tree had uncommitted changes. --json prints them as one object.`,
		Args:              exactArgs(),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(_ *cobra.Command, _ []string) error {
			if jsonOut {
				return writeJSON(a.env.Stdout, a.versionInfo())
			}
			_, err := fmt.Fprint(a.env.Stdout, a.versionLine())
			return err
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the version and build details as one JSON object")
	return cmd
}

// IsVersion reports whether args only ask for the version line (version,
// --version or -v), which Main prints without building the command tree:
// a program may skip the rest of its set-up for it (signal handling), so
// that the command starts as fast as a program can.
func IsVersion(args []string) bool { return stopsignal.Skip(args) }

// printVersion prints the version line for IsVersion's arguments, with
// the exit status of the command (version: a failed write fails, but for
// a reader that went away) or of the flag (--version: printed as help is,
// whose write errors cobra drops).
func (a *app) printVersion(command bool) int {
	_, err := io.WriteString(a.env.Stdout, a.versionLine())
	if err == nil || !command || errors.Is(err, syscall.EPIPE) {
		return ExitOK
	}
	fmt.Fprintf(a.env.Stderr, "switchboard: %s\n", oneLine(err.Error()))
	return ExitFailure
}

// versionLine is what version and --version print: "switchboard VERSION
// GO OS/ARCH", then the revision when the build recorded one.
func (a *app) versionLine() string {
	return a.versionInfo().String() + "\n"
}

// versionInfo is the program's version and build details.
func (a *app) versionInfo() buildVersion {
	bi, ok := debug.ReadBuildInfo()
	return newBuildVersion(a.env.Version, bi, ok)
}

// versionFlag gives root the flag --version (-v), which prints the version
// line. It is not cobra's own (Command.Version with a version template):
// cobra runs templates with text/template, whose reflective method calls
// make the linker keep every exported method of every type in the binary,
// which triples the binary's size. The root command is not runnable, so
// cobra shows help when it runs: that is where the flag is answered.
func (a *app) versionFlag(root *cobra.Command) {
	root.Flags().BoolP("version", "v", false, "version for switchboard")
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if v, _ := c.Flags().GetBool("version"); v && c == root {
			if h, _ := c.Flags().GetBool("help"); !h {
				fmt.Fprint(c.OutOrStdout(), a.versionLine())
				return
			}
		}
		help(c, args)
	})
}
