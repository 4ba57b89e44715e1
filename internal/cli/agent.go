package cli

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/conversation"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
)

// terminalType is the channel type of the terminal chat (channels/terminal).
const terminalType = "terminal"

// terminalChat is what `switchboard agent` needs of the terminal channel
// the host runs: the program links it (cmd/switchboard/main.go), the
// command line does not.
type terminalChat interface {
	// Attach tells the channel a person is at the terminal.
	Attach()
	// Say puts a line on the bus as a message of chat and returns its id.
	Say(ctx context.Context, chat, text string) (string, error)
	// Conversation holds the agent's answers, by chat.
	Conversation() *conversation.Book
}

// agentOptions are the flags of `switchboard agent`.
type agentOptions struct {
	message     string
	session     string
	wait        float64
	logs        bool
	stopTimeout float64
}

// agentCommand talks to the agent of the config from the terminal, as
// `nanobot agent` does.
func (a *app) agentCommand() *cobra.Command {
	var o agentOptions
	cmd := &cobra.Command{
		Use:   "agent [-m TEXT] [-s SESSION] [--wait SECONDS]",
		Short: "Talk to the agent from the terminal: one message with -m, else a prompt",
		Long: `Agent runs the agent of the config (as run does: --config, else
~/.nanobot/config.json; its provider, the scripted one when none is set up;
its mailbox when channels.mailbox is enabled) with a terminal chat as its
channel, as nanobot's "nanobot agent" does. The config's other chat channels
are left to switchboard run.

With -m it sends TEXT, prints the agent's answer on stdout and exits 0. When
the agent delegated work to another agent ("I asked coder to ..."), it then
waits, up to --wait seconds (default 300), for the final update of every task
it delegated from the session, printing each answer the agent gives as the
updates come back ("coder finished: 1 2 3"). It exits 1 with a one-line error
when the agent could not answer (the model could not be reached) or when a
task is still open after --wait; --wait 0 prints the first answer only.

Without -m it reads lines from stdin, one message each, and prints every
answer, the results of delegated tasks included, as they come. exit, quit,
/exit, /quit, :q, Ctrl-D or Ctrl-C leave; results that come back later are
printed by the next "switchboard agent" of the same session.

The conversation is the session terminal:SESSION (--session, default
"direct"; "terminal:direct" is accepted too), kept in the agent's workspace as
every session is. Answers are printed as the agent wrote them (Markdown
source), control characters escaped. Logs are off unless --logs or
--log-level is given; they go to stderr.`,
		Example: `  switchboard agent -m "hello"
  switchboard agent --config researcher.json -m "ask coder to sort 3 1 2"
  switchboard agent -s work`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			if !(o.wait >= 0 && o.wait <= 86400) { // NaN fails both
				return usagef("--wait %v: want a number of seconds from 0 to 86400", o.wait)
			}
			if !(o.stopTimeout > 0 && o.stopTimeout <= 3600) {
				return usagef("--stop-timeout %v: want a number of seconds above 0, at most 3600", o.stopTimeout)
			}
			chat := strings.TrimPrefix(strings.TrimSpace(o.session), terminalType+":")
			if chat == "" {
				return usagef("--session: want a session name, got %q", o.session)
			}
			if cmd.Flags().Changed("message") && strings.TrimSpace(o.message) == "" {
				return usagef("-m: the message is empty")
			}
			o.session = chat
			return a.runAgent(cmd.Context(), cmd.Flags().Changed("message"), o)
		}),
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.message, "message", "m", "", "send TEXT, print the answer (and the results of the tasks it delegated) and exit")
	fl.StringVarP(&o.session, "session", "s", "direct", "the conversation: session terminal:SESSION")
	fl.Float64Var(&o.wait, "wait", 300, "with -m, seconds to wait after the answer for the final update of each task the agent delegated (0: do not wait)")
	fl.BoolVar(&o.logs, "logs", false, "show the host's logs on stderr (at info, or --log-level)")
	fl.Float64Var(&o.stopTimeout, "stop-timeout", 10, "seconds to finish the turns in hand when leaving, and again to stop the channels")
	a.addLogFlags(cmd, "info")
	return cmd
}

// runAgent runs the host of the config with the terminal channel and
// talks to it: one message (oneShot) or a prompt.
func (a *app) runAgent(ctx context.Context, oneShot bool, o agentOptions) error {
	if !slices.Contains(channels.Types(), terminalType) {
		return errors.New("this build has no terminal channel: the program must import " +
			"github.com/switchboard-dev/switchboard/channels/terminal")
	}
	s, err := a.settings()
	if err != nil {
		return err
	}
	cfg := s.config
	agentChannels(cfg, a.root)
	logger := slog.New(slog.DiscardHandler)
	if o.logs || a.logs.level != "" {
		logger = a.logger(slog.LevelInfo)
	}
	stop := time.Duration(o.stopTimeout * float64(time.Second))
	h, err := host.New(cfg, host.Options{Logger: logger, Environ: a.env.Environ, StopTimeout: stop})
	if err != nil {
		return err
	}
	ch, _ := h.Channel(terminalType)
	tc, ok := ch.(terminalChat)
	if !ok {
		_ = h.Stop()
		return errors.New("the terminal channel of this build cannot be talked to (channels/terminal out of date?)")
	}
	tc.Attach()
	if err := h.Start(ctx); err != nil {
		_ = h.Stop()
		return err
	}
	logger.Info("host running", h.Describe()...)
	t := &talk{a: a, tc: tc, chat: o.session, name: cmp.Or(h.AgentID(), "agent")}
	if oneShot {
		err = t.once(ctx, o.message, time.Duration(o.wait*float64(time.Second)))
	} else {
		err = t.prompt(ctx)
	}
	if stopErr := h.Stop(); stopErr != nil && err == nil && !errors.Is(stopErr, host.ErrUnfinished) {
		err = stopErr
	}
	if stopped(ctx, err) {
		return nil
	}
	return err
}

// agentChannels makes cfg's channels those of `switchboard agent`: the
// terminal, enabled (keeping the keys of a channels.terminal section of
// the file), and the mailbox as configured (its root replaced by --root);
// the other chat channels are disabled, left to `switchboard run` (two
// processes must not take the same chat's events).
func agentChannels(cfg *config.Config, root string) {
	if cfg.Channels == nil {
		cfg.Channels = map[string]config.Section{}
	}
	for name, sec := range cfg.Channels {
		raw := maps.Clone(sec.Raw)
		if raw == nil {
			raw = map[string]any{}
		}
		switch name {
		case terminalType:
			raw["enabled"] = true
		case "mailbox":
			if root != "" {
				raw["mailboxesRoot"] = root
			}
		default:
			raw["enabled"] = false
		}
		sec.Raw = raw
		cfg.Channels[name] = sec
	}
	if _, ok := cfg.Channels[terminalType]; !ok {
		cfg.Channels[terminalType] = config.Section{Path: "channels." + terminalType, Raw: map[string]any{"enabled": true}}
	}
}
