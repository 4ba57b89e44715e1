package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
)

func (a *app) configCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Work with the config file",
		Long:  "Config works with the config file (--config, else ~/.nanobot/config.json).",
		Args:  exactArgs(),
		RunE:  a.action(func(cmd *cobra.Command, _ []string) error { return usagef("missing subcommand: check") }),
	}
	cmd.AddCommand(a.configCheckCommand())
	return cmd
}

func (a *app) configCheckCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "check [--json]",
		Short: "Say what switchboard makes of each key of the config: used, ignored (why) or an error",
		Long: `Check reads the config file (and the NANOBOT_ variables over it) as every
command does, and prints each key path with what switchboard makes of it:

  used     switchboard reads it
  ignored  switchboard accepts it and has no use for it: a key of nanobot's
           schema ("nanobot key switchboard does not use"), or a channel
           section of a type this build has no channel for ("channel type
           not in this build": run skips it with a warning)
  error    an unknown key (with the closest known one) or a bad value

Every channel section is checked, enabled or not, and so is the provider
that agents.defaults.provider names, as run builds it. What run refuses
is an error here too: an enabled channel with an empty allowFrom list, a
config whose enabled channels are all of types not in this build. It
changes nothing. Exit status 1 when there is an error.`,
		Example: `  switchboard config check
  switchboard --config coder.json config check --json | jq -r 'select(.status=="error") | .path'`,
		Args: exactArgs(),
		RunE: a.action(func(*cobra.Command, []string) error { return a.configCheck(jsonOut) }),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per key path")
	return cmd
}

// checkLine is one key path, as config check --json prints it.
type checkLine struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	Source string `json:"source,omitempty"`
}

func (a *app) configCheck(jsonOut bool) error {
	path := a.conf
	if path != "" {
		expanded, err := config.ExpandHome(path)
		if err != nil {
			return usagef("--config: %v", err)
		}
		if _, err := os.Stat(expanded); errors.Is(err, fs.ErrNotExist) {
			return usagef("--config %s: no such file", path)
		}
		path = expanded
	}
	cfg, err := config.Load(config.LoadOptions{Path: path, Environ: a.env.Environ, Lenient: []string{"*"}})
	if err != nil {
		return err // the file cannot be read or parsed
	}
	channels.DefaultRegistry().CheckConfig(cfg)
	if err := host.CheckChannels(channels.DefaultRegistry(), cfg); err != nil {
		cfg.Report.Invalid("channels", err) // run stops there too
	}
	if _, _, err := host.NewProvider(cfg, host.Options{Environ: a.env.Environ}); err != nil {
		cfg.Report.Invalid("agents.defaults.provider", err)
	}

	var lines []checkLine
	errs := 0
	for _, e := range cfg.Report.Entries() {
		l := checkLine{Path: e.Path, Status: e.Status.String(), Reason: e.Reason}
		if e.Err != nil {
			l.Error, l.Source = e.Err.Msg, e.Err.Source
			errs++
		}
		lines = append(lines, l)
	}
	if jsonOut {
		for _, l := range lines {
			if err := writeJSON(a.env.Stdout, l); err != nil {
				return err
			}
		}
	} else if err := a.printCheck(cfg.Path, lines); err != nil {
		return err
	}
	if errs > 0 {
		from := cfg.Path
		if from == "" {
			from = "the environment (no config file found)"
		}
		return fmt.Errorf("config check: %d %s in %s", errs, plural(errs, "error", "errors"), tilde(from))
	}
	return nil
}

// printCheck prints the lines as a table fitted to the terminal (see
// fitTable; row escapes what the file holds).
func (a *app) printCheck(file string, lines []checkLine) error {
	w := a.table()
	if file == "" {
		file = "(none found: defaults and NANOBOT_ variables)"
	}
	row(w, "file", tilde(file))
	for _, l := range lines {
		why := l.Reason
		if l.Error != "" {
			why = l.Error
			if l.Source != "" {
				why = l.Source + ": " + why
			}
		}
		row(w, l.Status, orDash(l.Path), why)
	}
	return w.Flush()
}
