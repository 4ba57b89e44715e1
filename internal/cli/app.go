package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Env is what the command line gets from its process.
type Env struct {
	// Stdin is read by `switchboard mcp` over stdio (nil: os.Stdin).
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Environ is the environment as os.Environ returns it: NANOBOT_
	// variables override the config file, NO_COLOR turns colour off.
	Environ []string
	// Version is the program's version ("dev" for a plain go build).
	Version string
}

// app holds one invocation's state: the streams, the global flags and what
// was loaded from them.
type app struct {
	env  Env
	root string // --root
	conf string // --config
	wide bool   // --wide
	logs logSettings

	started bool // a command's RunE began: later errors are not usage errors
	loaded  *settings
}

// Main runs the command line with args (without the program name) and
// returns the exit status. ctx ends on SIGINT or SIGTERM; the long-running
// commands (run, recv, watch) stop cleanly then and return ExitOK.
func Main(ctx context.Context, args []string, env Env) int {
	a := &app{env: env}
	if IsVersion(args) {
		return a.printVersion(args[0] == "version")
	}
	cmd := a.rootCommand(commandName(args))
	if args == nil {
		args = []string{} // cobra reads os.Args when given nil
	}
	cmd.SetArgs(args)
	cmd.SetOut(env.Stdout)
	cmd.SetErr(env.Stderr)
	failed, err := cmd.ExecuteContextC(ctx)
	if err == nil || errors.Is(err, syscall.EPIPE) {
		return ExitOK // EPIPE: whoever read stdout has all it wanted
	}
	usage := isUsage(err) || !a.started
	msg := oneLine(err.Error())
	if !usage {
		fmt.Fprintf(env.Stderr, "switchboard: %s\n", msg)
		return ExitFailure
	}
	if strings.HasPrefix(msg, "unknown command ") {
		if s := cmd.SuggestionsFor(unknownName(msg)); len(s) > 0 {
			msg += fmt.Sprintf(" (did you mean %q?)", s[0])
		}
	}
	fmt.Fprintf(env.Stderr, "switchboard: %s; run '%s'\n", msg, helpHint(failed))
	return ExitUsage
}

// commandName returns the first argument that is not a global flag or its
// value: the command's name.
func commandName(args []string) string {
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; arg {
		case "--root", "--config":
			i++ // the value
		case "--wide":
		default:
			if !strings.HasPrefix(arg, "--root=") && !strings.HasPrefix(arg, "--config=") && !strings.HasPrefix(arg, "--wide=") {
				return arg
			}
		}
	}
	return ""
}

// helpHint names the help command for cmd.
func helpHint(cmd *cobra.Command) string {
	if cmd == nil || !cmd.HasParent() || cmd.Name() == "help" {
		return "switchboard help"
	}
	return "switchboard help " + strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// unknownName returns X of cobra's `unknown command "X" for "..."`.
func unknownName(msg string) string {
	rest := strings.TrimPrefix(msg, "unknown command ")
	if i := strings.Index(rest, `" for `); i > 0 && strings.HasPrefix(rest, `"`) {
		return rest[1:i]
	}
	return ""
}

// rootCommand builds the command tree. When name is one of the
// sub-commands (see subcommands), only that one is built: it is all that
// runs, and building every command with its flags would take longer than
// most commands' work. Help, completion and an unknown name get the whole
// tree.
func (a *app) rootCommand(name string) *cobra.Command {
	root := &cobra.Command{
		Use:   "switchboard",
		Short: "Run agents and work with their mailboxes",
		Long: `switchboard runs chat-bot agents and lets you work with the mailbox through
which agent processes (switchboard or nanobot) exchange messages and tasks.

Exit status: 0 on success, 1 on failure, 2 on bad usage. Listing commands
take --json and then print one JSON object per line.`,
		SilenceUsage:       true,
		SilenceErrors:      true,
		DisableSuggestions: true, // Main adds its own, on one line
	}
	a.versionFlag(root)
	root.SuggestionsMinimumDistance = 2
	root.SetHelpCommand(a.helpCommand())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return asUsage(err) })
	pf := root.PersistentFlags()
	pf.StringVar(&a.root, "root", "", "mailbox root folder (default: the config's channels.mailbox.mailboxesRoot, else ~/.nanobot/mailboxes); the mailbox commands then use the filesystem store there, whatever channels.mailbox.backend says")
	pf.StringVar(&a.conf, "config", "", "config file (default ~/.nanobot/config.json; a missing default file is fine)")
	pf.BoolVar(&a.wide, "wide", false, "print table cells whole: tables are otherwise fitted to the terminal's width ($COLUMNS), long cells cut with …")
	subs := a.subcommands()
	if i := slices.IndexFunc(subs, func(s subcommand) bool { return s.name == name }); i >= 0 {
		subs = subs[i : i+1]
	}
	for _, s := range subs {
		root.AddCommand(s.build())
	}
	a.strictCompletion(root)
	return root
}

// subcommand is one command under the root, by the name it is called.
type subcommand struct {
	name  string
	build func() *cobra.Command
}

// subcommands are the root's commands in the order they are added (help
// sorts them); each name is its command's Name().
func (a *app) subcommands() []subcommand {
	return []subcommand{
		{"run", a.runCommand},
		{"agent", a.agentCommand},
		{"demo", a.demoCommand},
		{"send", a.sendCommand},
		{"recv", a.recvCommand},
		{"bridge", a.bridgeCommand},
		{"inbox", a.inboxCommand},
		{"agents", a.agentsCommand},
		{"thread", a.threadCommand},
		{"watch", a.watchCommand},
		{"doctor", a.doctorCommand},
		{"log", a.logCommand},
		{"stats", a.statsCommand},
		{"pending", a.pendingCommand},
		{"mcp", a.mcpCommand},
		{"a2a", a.a2aCommand},
		{"console", a.consoleCommand},
		{"dead", a.deadCommand},
		{"redeliver", a.redeliverCommand},
		{"archive", a.archiveCommand},
		{"cancel", a.cancelCommand},
		{"approvals", a.approvalsCommand},
		{"drain", a.drainCommand},
		{"waits", a.waitsCommand},
		{"escalations", a.escalationsCommand},
		{"artifacts", a.artifactsCommand},
		{"artifact", a.artifactCommand},
		{"reserve", a.reserveCommand},
		{"reservations", a.reservationsCommand},
		{"release", a.releaseCommand},
		{"keys", a.keysCommand},
		{"version", a.versionCommand},
		{"config", a.configCommand},
	}
}

// action wraps a command's body: errors after this point are failures of
// the command unless it returns a usage error itself.
func (a *app) action(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.started = true
		return fn(cmd, args)
	}
}

// exactArgs accepts exactly the named positional arguments.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			return usagef("missing argument %s", strings.ToUpper(names[len(args)]))
		case len(args) > len(names):
			return usagef("unexpected argument %q", args[len(names)])
		}
		return nil
	}
}

// maxArgs accepts up to the named positional arguments.
func maxArgs(names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > len(names) {
			return usagef("unexpected argument %q", args[len(names)])
		}
		return nil
	}
}

// stopped reports whether err only says that ctx ended (SIGINT/SIGTERM),
// which the long-running commands treat as a normal end.
func stopped(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, ctx.Err()))
}

// helpCommand replaces cobra's, which answers an unknown topic with the
// whole usage text and exit status 0.
func (a *app) helpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints the help of any command: switchboard help send.",
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var names []cobra.Completion
			if len(args) == 0 {
				for _, sub := range c.Root().Commands() {
					if sub.IsAvailableCommand() {
						names = append(names, sub.Name())
					}
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: a.action(func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				return usagef("unknown help topic %q", strings.Join(args, " "))
			}
			return target.Help()
		}),
	}
}
