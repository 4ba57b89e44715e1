package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// stopTimeout bounds a clean stop of the channels.
const stopTimeout = 10 * time.Second

func (a *app) recvCommand() *cobra.Command {
	var (
		count   int
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "recv AGENT [--count N] [--json]",
		Short: "Receive as AGENT and print each inbound message as it arrives",
		Long: `Recv runs AGENT's mailbox channel: it registers AGENT's card, heartbeats and
claims AGENT's messages, and prints each one as soon as it arrives. It stops
after --count messages, or on SIGINT/SIGTERM, and then marks AGENT offline.

The channel settings are the config's channels.mailbox section when its
agentId is AGENT, else the defaults on the configured store (the section's
backend, nats and mailboxesRoot keys); --root puts the mailbox on the
filesystem store in that folder. Recv takes every message: the receiving
rate limit (channels.mailbox.limits.perSender, which guards an agent's model
from a flooding sender) applies only when the config sets it.

Recv is a debugging receiver: it answers nothing. While messages wait,
their lines are written in batches (up to 256 at a time); a lone message is
printed at once. A message is moved to processed/ once its line is
written, and only then: it takes exactly the
messages it prints (one it was handed but did not print, when --count is
reached or recv is killed, stays claimed and comes back on the next
start). A task is accepted (the sender gets a task_update
"accepted") and printed, but never finished: it stays claimed and comes
back when AGENT's inbox is next opened; so does a request that expects a
reply, until it is answered (send --from AGENT --reply-to ID): then it is
moved to processed/ at the next start, without being printed again. Only
one process can receive as an agent at a time; recv fails while another
one does.`,
		Example: `  switchboard recv coder
  switchboard recv coder --count 1 --json | jq .content`,
		Args:              exactArgs("agent"),
		ValidArgsFunction: a.completeAgentArg,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			if err := envelope.ValidateAgentID(args[0]); err != nil {
				return asUsage(err)
			}
			if count < 0 {
				return usagef("--count %d: want 0 (no limit) or more", count)
			}
			return a.recv(cmd.Context(), args[0], count, jsonOut)
		}),
	}
	cmd.Flags().IntVar(&count, "count", 0, "exit after N messages (0: run until SIGINT/SIGTERM)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per message")
	a.addLogFlags(cmd, "warn")
	return cmd
}

// recvLine is a received message as recv --json prints it: the bus's
// InboundMessage fields and the mailbox details.
type recvLine struct {
	Channel    string        `json:"channel"`
	SenderID   string        `json:"sender_id"`
	ChatID     string        `json:"chat_id"`
	Content    string        `json:"content"`
	Media      []string      `json:"media,omitempty"`
	SessionKey string        `json:"session_key"`
	Timestamp  envelope.Time `json:"timestamp"`
	Mailbox    *meta.Meta    `json:"mailbox"`
}

func (a *app) recv(ctx context.Context, agent string, count int, jsonOut bool) error {
	cfg, where, err := a.recvConfig(agent)
	if err != nil {
		return err
	}
	s, err := a.settings()
	if err != nil {
		return err
	}
	logger := a.logger(slog.LevelWarn)
	stopTracing, err := a.startTracing(ctx, s.config.Observability.Tracing, agent, logger)
	if err != nil {
		return err
	}
	defer stopTracing() // after the channel stopped: its last spans are flushed
	b := bus.New(1)     // one ahead at most: what is taken and not printed comes back, counted as a hand-out
	defer b.Close()
	ch, err := mailbox.New(cfg, b, mailbox.Options{Logger: logger})
	if err != nil {
		return err
	}
	if err := ch.Start(ctx); err != nil {
		return fmt.Errorf("recv %s: %w", agent, err) // store.ErrInboxBusy says who runs it
	}
	fmt.Fprintf(a.env.Stderr, "listening as %s in %s (Ctrl-C to stop)\n", agent, where)

	printErr := a.drain(ctx, b, count, jsonOut)
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	return errors.Join(printErr, ch.Stop(stop))
}

// maxUnflushed bounds the messages recv prints into its output buffer
// before it writes them out (and only then acknowledges them).
const maxUnflushed = 256

// drain prints the messages off b until count were printed (0: no limit)
// or ctx ends. Each message is acknowledged (moved to processed/) once it
// is printed, and only then: one taken but not printed (the channel may
// hand over one ahead, and SIGKILL may come at any time) stays claimed
// and comes back on the next start. The lines go through a buffer, which
// is written out whenever no message is waiting on the bus (so a lone
// message is printed at once) or maxUnflushed are in it; the messages of
// a write are then acknowledged by a goroutine of their own while the
// next ones are printed, and drain returns once all are. When stdout
// fails, the messages not written are reported on stderr and left
// unacknowledged.
func (a *app) drain(ctx context.Context, b *bus.Bus, count int, jsonOut bool) error {
	acks := make(chan []bus.InboundMessage, 4)
	spare := make(chan []bus.InboundMessage, 4) // acknowledged batches' slices, for reuse
	acked := make(chan struct{})
	go func() {
		defer close(acked)
		for batch := range acks {
			for _, in := range batch {
				in.Done()
			}
			clear(batch)
			select {
			case spare <- batch[:0]:
			default:
			}
		}
	}()
	defer func() {
		close(acks)
		<-acked
	}()

	out := bufio.NewWriterSize(a.env.Stdout, 64<<10)
	var unflushed []bus.InboundMessage
	notPrinted := func() {
		for _, in := range unflushed {
			a.reportUnprinted(in, "stdout was closed")
		}
	}
	flush := func() error {
		if len(unflushed) == 0 {
			return nil
		}
		if err := out.Flush(); err != nil {
			notPrinted()
			return err
		}
		acks <- unflushed
		select {
		case unflushed = <-spare: // a batch acknowledged: its slice serves again
		default:
			unflushed = nil
		}
		return nil
	}
	printed := 0
	for count == 0 || printed < count {
		if b.InboundDepth() == 0 || len(unflushed) >= maxUnflushed {
			if err := flush(); err != nil {
				return err
			}
		}
		in, err := b.ConsumeInbound(ctx)
		if err != nil {
			break // ctx ended: SIGINT or SIGTERM
		}
		unflushed = append(unflushed, in)
		if err := a.printInbound(out, in, jsonOut); err != nil {
			notPrinted() // what the buffer holds is not printed
			return err
		}
		printed++
	}
	return flush()
}

// recvConfig is the channel config for agent: the config's mailbox
// section (file and NANOBOT_ variables: the store, fsync, intervals,
// limits, ...), with the identity of the section's agent (agentId,
// description, capabilities, roles) kept only when agent is that agent;
// --root puts it on the filesystem store there. where names the store for
// people.
func (a *app) recvConfig(agent string) (cfg mailbox.Config, where string, err error) {
	s, err := a.settings()
	if err != nil {
		return mailbox.Config{}, "", err
	}
	cfg = s.mailbox
	if !s.fromFile || s.mailbox.AgentID != agent {
		def := mailbox.DefaultConfig()
		cfg.AgentID = agent
		cfg.Description, cfg.Capabilities, cfg.Roles = def.Description, def.Capabilities, def.Roles
		cfg.KeyFile = def.KeyFile // the section's keyFile is its agent's key
	}
	if !s.perSenderSet {
		// recv takes every message: the receiving rate limit guards an
		// agent's model from a flooding sender, and recv has none.
		cfg.Limits.PerSender.Rate = 0
	}
	cfg.Backend = a.backendKind(s)
	return cfg, a.storeWhere(s), nil
}

// reportUnprinted tells, on stderr, of a message received (so handled
// for the channel) but not printed, and why.
func (a *app) reportUnprinted(in bus.InboundMessage, why string) {
	id := "from " + in.SenderID
	if m, ok := meta.Of(in.Metadata); ok {
		id = m.MessageID
	}
	fmt.Fprintf(a.env.Stderr, "switchboard: message %s arrived after %s; not printed\n", safeText(id), why)
}

// printInbound prints one received message to w: time, sender, the type
// with task id and state unless it is a plain message, and the content.
func (a *app) printInbound(w io.Writer, in bus.InboundMessage, jsonOut bool) error {
	mt, _ := meta.Of(in.Metadata)
	if jsonOut {
		return writeJSON(w, recvLine{
			Channel: in.Channel, SenderID: in.SenderID, ChatID: in.ChatID, Content: in.Content,
			Media: in.Media, SessionKey: in.SessionKey(), Timestamp: envelope.NewTime(in.Timestamp),
			Mailbox: mt,
		})
	}
	line := in.Timestamp.Local().Format(time.TimeOnly) + " " + in.SenderID
	text := ""
	if mt != nil && mt.Unverified {
		line += " " + unverifiedMark
	}
	if mt != nil {
		if mt.Type != envelope.TypeMessage {
			line += " [" + kindLabel(mt.Type, mt.Task) + "]"
		}
		text = envelope.OneLine(mt.Parts)
		if mt.Task != nil && mt.Task.Reason != "" {
			text = strings.TrimSpace(text + " (" + mt.Task.Reason + ")")
		}
	}
	if text == "" {
		text = envelope.OneLine([]envelope.Part{envelope.TextPart(in.Content)})
	}
	// The line is written in pieces (w buffers), the text not copied.
	if text = strings.TrimRightFunc(text, unicode.IsSpace); text != "" {
		line += " "
	}
	for _, piece := range [...]string{safeText(line), safeText(text), "\n"} {
		if _, err := io.WriteString(w, piece); err != nil {
			return err
		}
	}
	return nil
}
