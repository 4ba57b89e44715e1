package cli

import (
	"cmp"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/config"
)

// logSettings are the --log-level and --log-format flags of the commands
// that run long.
type logSettings struct {
	on     bool   // the command has the flags: they and the config apply
	level  string // --log-level
	format string // --log-format
}

// addLogFlags gives cmd, a command that runs long, --log-level and
// --log-format; they, else the config's observability.logs, set the
// level and format of its log lines.
func (a *app) addLogFlags(cmd *cobra.Command, defaultLevel string) {
	fl := cmd.Flags()
	fl.StringVar(&a.logs.level, "log-level", "", "lowest level logged to stderr: debug, info, warn or error (default: the config's observability.logs.level, else "+defaultLevel+"); message text is logged only at debug")
	fl.StringVar(&a.logs.format, "log-format", "", "log line format: text or json (default: the config's observability.logs.format, else text)")
	pre := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if msg := config.CheckLogLevel(a.logs.level); msg != "" {
			return usagef("--log-level: %s", msg)
		}
		if msg := config.CheckLogFormat(a.logs.format); msg != "" {
			return usagef("--log-format: %s", msg)
		}
		a.logs.on = true
		if pre != nil {
			return pre(c, args)
		}
		return nil
	}
}

// logger logs to stderr from level up, as text. On a command that runs
// long, --log-level and --log-format, else the config's
// observability.logs, replace them.
func (a *app) logger(level slog.Level) *slog.Logger {
	format := config.LogFormatText
	if a.logs.on {
		var conf config.LogsConfig
		if a.loaded != nil {
			conf = a.loaded.config.Observability.Logs
		}
		if name := cmp.Or(a.logs.level, conf.Level); name != "" {
			level = parseLevel(name)
		}
		format = cmp.Or(strings.ToLower(a.logs.format), strings.ToLower(conf.Format), format)
	}
	opts := &slog.HandlerOptions{Level: level}
	if format == config.LogFormatJSON {
		return slog.New(slog.NewJSONHandler(a.env.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(a.env.Stderr, opts))
}

// parseLevel turns a level checked by config.CheckLogLevel into a
// slog.Level.
func parseLevel(name string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(name)); err != nil {
		return slog.LevelInfo // not reached: the name was checked
	}
	return l
}
