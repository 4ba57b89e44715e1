package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/meta"
)

// stopTimeout bounds a clean stop of the channels.
const stopTimeout = 10 * time.Second

// ackTimeout bounds the wait, before stopping, for the store to record the
// last message printed as processed.
const ackTimeout = 5 * time.Second

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
filesystem store in that folder.

Recv is a debugging receiver: it answers nothing. Messages it prints are
moved to processed/. A task is accepted (the sender gets a task_update
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
	acks := newAckLog(64)
	b := bus.New(1) // the channel hands over at most one message ahead of what was printed
	defer b.Close()
	ch, err := mailbox.New(cfg, b, mailbox.Options{Logger: a.logger(slog.LevelWarn), Observer: acks.observe})
	if err != nil {
		return err
	}
	if err := ch.Start(ctx); err != nil {
		return fmt.Errorf("recv %s: %w", agent, err) // store.ErrInboxBusy says who runs it
	}
	fmt.Fprintf(a.env.Stderr, "listening as %s in %s (Ctrl-C to stop)\n", agent, where)

	var last *meta.Meta // the last message printed
	printed := 0
	var printErr error
	for count == 0 || printed < count {
		in, err := b.ConsumeInbound(ctx)
		if err != nil {
			break // ctx ended: SIGINT or SIGTERM
		}
		if count > 0 && printed == count-1 {
			plug(b) // the last one: keep the channel from handing over another
		}
		if printErr = a.printInbound(in, jsonOut); printErr != nil {
			a.reportUnprinted(in, "stdout was closed")
			break
		}
		printed++
		last, _ = meta.Of(in.Metadata)
	}

	// Let the store move the last message printed to processed/ before
	// the channel stops (a task, and a request owed a reply, stay claimed
	// by design: skip them).
	if last != nil && !last.IsTask() && !last.ExpectsReply {
		wait, cancel := context.WithTimeout(context.WithoutCancel(ctx), ackTimeout)
		acks.wait(wait, last.MessageID)
		cancel()
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	stopErr := ch.Stop(stop)
	// Messages the channel handed over after the loop ended were received
	// (and may be processed already): print them, up to --count.
	b.Close()
	for {
		in, err := b.ConsumeInbound(context.Background())
		if err != nil {
			break
		}
		if in.Channel == plugChannel {
			continue
		}
		if count > 0 && printed >= count {
			a.reportUnprinted(in, fmt.Sprintf("--count %d was reached", count))
			continue
		}
		if printErr != nil {
			a.reportUnprinted(in, "stdout was closed")
		} else if printErr = a.printInbound(in, jsonOut); printErr != nil {
			a.reportUnprinted(in, "stdout was closed")
		}
		printed++
	}
	return errors.Join(printErr, stopErr)
}

// plugChannel marks the placeholder plug puts on the bus.
const plugChannel = "switchboard-recv-plug"

// plug fills the bus's one free place, if it is still free, with a
// placeholder, so that the channel's next hand-over waits, and is undone
// by Stop: that message stays claimed and comes back on the next start,
// instead of being processed unseen. If the channel was quicker, its
// message is reported after the stop.
func plug(b *bus.Bus) {
	done, cancel := context.WithCancel(context.Background())
	cancel() // publish only if there is room now
	_ = b.PublishInbound(done, bus.InboundMessage{Channel: plugChannel})
}

// recvConfig is the channel config for agent: the file's mailbox section
// if it is agent's, else the defaults on the configured store (backend,
// its section, the root); --root puts it on the filesystem store there.
// where names the store for people.
func (a *app) recvConfig(agent string) (cfg mailbox.Config, where string, err error) {
	s, err := a.settings()
	if err != nil {
		return mailbox.Config{}, "", err
	}
	if s.fromFile && s.mailbox.AgentID == agent {
		cfg = s.mailbox
	} else {
		cfg = mailbox.DefaultConfig()
		cfg.AgentID = agent
		cfg.MailboxesRoot = s.mailbox.MailboxesRoot
		cfg.Backend, cfg.Stores = s.mailbox.Backend, s.mailbox.Stores
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
	fmt.Fprintf(a.env.Stderr, "switchboard: message %s arrived after %s; not printed\n", id, why)
}

// printInbound prints one received message: time, sender, the type with
// task id and state unless it is a plain message, and the content.
func (a *app) printInbound(in bus.InboundMessage, jsonOut bool) error {
	mt, _ := meta.Of(in.Metadata)
	if jsonOut {
		return writeJSON(a.env.Stdout, recvLine{
			Channel: in.Channel, SenderID: in.SenderID, ChatID: in.ChatID, Content: in.Content,
			Media: in.Media, SessionKey: in.SessionKey(), Timestamp: envelope.NewTime(in.Timestamp),
			Mailbox: mt,
		})
	}
	line := in.Timestamp.Local().Format(time.TimeOnly) + " " + in.SenderID
	text := ""
	if mt != nil {
		if mt.Type != envelope.TypeMessage {
			line += " [" + kindLabel(mt.Type, mt.Task) + "]"
		}
		text = summary(mt.Parts)
		if mt.Task != nil && mt.Task.Reason != "" {
			text = strings.TrimSpace(text + " (" + mt.Task.Reason + ")")
		}
	}
	if text == "" {
		text = summary([]envelope.Part{envelope.TextPart(in.Content)})
	}
	_, err := fmt.Fprintln(a.env.Stdout, strings.TrimSpace(line+" "+text))
	return err
}
