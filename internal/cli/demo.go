package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// The demo's conversation.
const (
	demoUser   = "ou_demo_user"
	demoChat   = "oc_demo_chat"
	demoAsk    = "ask coder to sort 5 3 9 1"
	demoAnswer = "1 3 5 9"
)

// demoStopLimit bounds the stop of each agent process.
const demoStopLimit = stopTimeout + 5*time.Second

// demoFlags are the demo command's flags.
type demoFlags struct {
	dir     string
	timeout time.Duration
	keep    bool
}

func (a *app) demoCommand() *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo [--dir DIR] [--timeout D] [--keep]",
		Short: "Run the two-agent demo: Feishu user → researcher → coder and back",
		Long: `Demo runs the main job end to end with no API key and no external service.

It writes two configs into a fresh folder (a temporary one unless --dir names
an empty or new folder), then starts two agents as separate processes
(` + "`switchboard run --config FILE`" + `): researcher, with the Feishu stub on a free
127.0.0.1 port and the mailbox, and coder, with the mailbox only (capabilities
sorting, counting, arithmetic). Both use the deterministic scripted provider.

Once both are registered online, it posts a Feishu im.message.receive_v1
event "` + demoAsk + `" to researcher's webhook over HTTP, waits for the
answer to appear in that Feishu chat, prints the conversation (the user's
message, the messages between the agents, the replies in the chat), stops
both agents (SIGTERM: each marks itself offline) and exits 0. It exits 1 with
a one-line reason when anything fails or takes longer than --timeout.

With --keep the agents keep running after the conversation, and the demo
prints commands to talk to them, until Ctrl-C stops them.`,
		Example: `  switchboard demo
  go run ./cmd/switchboard demo --keep
  switchboard demo --dir /tmp/sb-demo --timeout 1m`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			if a.root != "" || a.conf != "" {
				return usagef("demo writes its own configs and mailbox folder: leave out --root and --config (use --dir)")
			}
			if f.timeout <= 0 {
				return usagef("--timeout must be positive, got %s", f.timeout)
			}
			return a.demo(cmd.Context(), f)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "dir", "", "folder for the configs, logs, mailboxes and Feishu outbox (new or empty; default: a temporary folder, removed after a successful run)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "give up when the answer has not arrived by then")
	fl.BoolVar(&f.keep, "keep", false, "keep both agents running after the conversation, until Ctrl-C")
	return cmd
}

// demoRun is one run of the demo.
type demoRun struct {
	out     io.Writer
	layout  demoLayout
	agents  []*demoAgent // researcher, coder
	webhook string
}

func (a *app) demo(ctx context.Context, f demoFlags) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program to start the agents: %w", err)
	}
	dir, temporary, err := demoDir(f.dir)
	if err != nil {
		return err
	}
	layout := newDemoLayout(dir)
	if err := layout.write(); err != nil {
		return err
	}
	d := &demoRun{out: a.env.Stdout, layout: layout}
	fmt.Fprintf(d.out, "switchboard demo: a Feishu user asks researcher; researcher delegates to coder through the mailbox.\n")
	fmt.Fprintf(d.out, "folder: %s (configs, logs, mailboxes, Feishu outbox)\n\n", dir)
	err = d.converse(ctx, exe, a.env.Environ, f)
	if stopErr := d.stopAll(); err == nil {
		err = stopErr
	}
	if err != nil {
		return err
	}
	if temporary && !f.keep {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove the demo's folder: %w", err)
		}
		fmt.Fprintf(d.out, "removed %s (run with --dir DIR to keep the configs, logs and mailboxes)\n", dir)
	}
	return nil
}

// converse starts the agents, holds the conversation and, with --keep,
// waits for Ctrl-C.
func (d *demoRun) converse(ctx context.Context, exe string, environ []string, f demoFlags) error {
	tctx, cancel := context.WithTimeoutCause(ctx, f.timeout, fmt.Errorf("took longer than --timeout %s", f.timeout))
	defer cancel()
	if err := d.start(tctx, exe, environ); err != nil {
		return d.explain(ctx, err)
	}
	chat, replies, err := d.ask(tctx)
	if err != nil {
		return d.explain(ctx, err)
	}
	if err := d.report(ctx, chat); err != nil {
		return err
	}
	if f.keep {
		d.keep(ctx, replies)
	}
	return nil
}

// explain says that Ctrl-C interrupted the demo, when it did.
func (d *demoRun) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	return err
}

// start starts both agents and waits until both run and are online.
func (d *demoRun) start(ctx context.Context, exe string, environ []string) error {
	env := demoEnv(environ, d.layout.home)
	for _, name := range []string{demoResearcher, demoCoder} {
		ag, err := startDemoAgent(exe, name, d.layout.config(name), d.layout.log(name), d.layout.dir, env)
		if err != nil {
			return err
		}
		d.agents = append(d.agents, ag)
	}
	for _, ag := range d.agents {
		line, err := ag.awaitRunning(ctx)
		if err != nil {
			return err
		}
		desc := "mailbox only, capabilities " + strings.Join(demoCoderCapabilities, ", ")
		if m := webhookAttr.FindStringSubmatch(line); m != nil {
			d.webhook = m[1]
			desc = "Feishu stub at " + d.webhook + " + mailbox"
		}
		fmt.Fprintf(d.out, "started %-10s (pid %d): %s\n", ag.name, ag.cmd.Process.Pid, desc)
	}
	if d.webhook == "" {
		return errors.New("researcher runs but did not log its Feishu webhook address")
	}
	online, err := onlineAgents(ctx, d.layout.root)
	if err != nil {
		return err
	}
	for _, name := range []string{demoResearcher, demoCoder} {
		if !slices.Contains(online, name) {
			return fmt.Errorf("%s runs but is not online in the registry (online: %v)", name, online)
		}
	}
	fmt.Fprintf(d.out, "both agents are registered online in %s\n\n", d.layout.root)
	return nil
}

// ask posts the user's message to the webhook and waits for the answer in
// the user's chat. It returns the chat (the message and the replies) and
// the number of replies.
func (d *demoRun) ask(ctx context.Context) ([]demoLine, int, error) {
	asked := time.Now()
	event := feishuEvent("ev_demo_1", demoUser, demoChat, "om_demo_1", demoAsk, asked)
	fmt.Fprintf(d.out, "POST %s  (im.message.receive_v1 from %s in chat %s: %q)\n", d.webhook, demoUser, demoChat, demoAsk)
	if err := postEvent(ctx, d.webhook, event); err != nil {
		return nil, 0, err
	}
	lines := []demoLine{{at: asked, who: "user → " + demoResearcher, via: "feishu", text: demoAsk}}
	var got int
	for {
		replies, err := nextReplies(ctx, d.webhook, demoChat, got, 10*time.Second)
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		if err != nil {
			return nil, got, fmt.Errorf("no answer in chat %s (%d replies so far; logs: %s, %s): %w", demoChat, got,
				d.layout.log(demoResearcher), d.layout.log(demoCoder), err)
		}
		got += len(replies)
		lines = append(lines, chatLines(demoResearcher, "user", replies)...)
		for _, r := range replies {
			switch {
			case strings.Contains(r.Content, demoAnswer):
				return lines, got, nil
			case strings.Contains(r.Content, "could not"):
				return nil, got, fmt.Errorf("the user was told %q (logs: %s, %s)", r.Content,
					d.layout.log(demoResearcher), d.layout.log(demoCoder))
			}
		}
	}
}

// report prints the conversation: the chat and the mailbox, in time order.
func (d *demoRun) report(ctx context.Context, chat []demoLine) error {
	mail, err := mailboxLines(ctx, d.layout.root)
	if err != nil {
		return fmt.Errorf("read the mailbox: %w", err)
	}
	fmt.Fprintf(d.out, "\nthe conversation in Feishu chat %s and the mailbox (seconds since the user's message):\n", demoChat)
	transcript(d.out, append(chat, mail...))
	fmt.Fprintf(d.out, "\nthe user's chat %s got the answer %q (also in %s)\n", demoChat, demoAnswer, d.layout.outbox)
	return nil
}

// keep leaves the agents running until ctx ends or one of them exits.
func (d *demoRun) keep(ctx context.Context, seen int) {
	fmt.Fprintf(d.out, "\nboth agents keep running; Ctrl-C stops them. Try:\n")
	fmt.Fprintf(d.out, "  curl -s %s -H 'Content-Type: application/json' -d '%s'\n", d.webhook,
		shortEvent(demoUser, demoChat, "ask coder to count words in hello big world"))
	fmt.Fprintf(d.out, "  curl -s '%s'   # then after=<next> of each answer\n", repliesURL(d.webhook, demoChat, seen, 10*time.Second))
	fmt.Fprintf(d.out, "  switchboard --root %s agents\n", d.layout.root)
	fmt.Fprintf(d.out, "  tail -f %s %s\n", d.layout.log(demoResearcher), d.layout.log(demoCoder))
	select {
	case <-ctx.Done():
	case <-d.agents[0].exited:
	case <-d.agents[1].exited:
	}
	fmt.Fprintln(d.out)
}

// stopAll stops the agents that were started and checks that each marked
// itself offline.
func (d *demoRun) stopAll() error {
	if len(d.agents) == 0 {
		return nil
	}
	var errs []error
	var names []string
	for _, ag := range d.agents {
		errs = append(errs, ag.stop(demoStopLimit))
		names = append(names, ag.name)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	offline, err := offlineAgents(d.layout.root, names)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "stopped %s (exit status 0; offline in the registry: %s)\n",
		strings.Join(names, " and "), strings.Join(offline, ", "))
	return nil
}

// demoDir returns the demo's folder: dir (created, and refused when not
// empty) or a new temporary one.
func demoDir(dir string) (string, bool, error) {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "switchboard-demo-")
		return tmp, true, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, fmt.Errorf("--dir: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", false, fmt.Errorf("--dir: %w", err)
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return "", false, fmt.Errorf("--dir: %w", err)
	}
	if len(ents) > 0 {
		return "", false, usagef("--dir %s is not empty: name a new or empty folder", dir)
	}
	return abs, false, nil
}
