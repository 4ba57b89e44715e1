package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	feishustub "github.com/switchboard-dev/switchboard/internal/feishustub"
)

// The demo's conversation.
const (
	demoUser   = "ou_demo_user"
	demoChat   = "oc_demo_chat"
	demoAsk    = "ask coder to sort 5 3 9 1"
	demoAnswer = "1 3 5 9"
)

// demoStopLimit bounds the stop of each agent process: it answers what it
// received, then stops its channels, each within stopTimeout.
const demoStopLimit = 2*stopTimeout + 5*time.Second

// demoFlags are the demo command's flags.
type demoFlags struct {
	dir     string
	timeout time.Duration
	keep    bool
	backend string
	natsURL string
	observe bool
}

// demoRun is one run of the demo.
type demoRun struct {
	out     io.Writer
	layout  demoLayout
	be      *demoBackend
	agents  []*demoAgent // researcher, coder
	webhook string
	obs     *demoObserve // nil without --observe
}

// Options are what the command line hands the demo.
type Options struct {
	// Dir is the demo's folder ("": a temporary one).
	Dir string
	// Timeout bounds the wait for the answer.
	Timeout time.Duration
	// Keep keeps both agents running after the conversation.
	Keep bool
	// Backend is "fs" or "nats"; NATSURL names a NATS server to use
	// instead of starting one.
	Backend, NATSURL string
	// Observe traces both agents to a receiver in this process and serves
	// their metrics.
	Observe bool
	// Stdout receives the transcript.
	Stdout io.Writer
	// Environ is the agents' environment (HOME is set for them).
	Environ []string
}

// Run runs the demo: the agents are `run` processes of this program
// (os.Executable), which must therefore be one whose command line is
// package cli's, as cmd/switchboard. ctx ends it (SIGINT/SIGTERM).
func Run(ctx context.Context, o Options) error {
	f := demoFlags{dir: o.Dir, timeout: o.Timeout, keep: o.Keep, backend: o.Backend, natsURL: o.NATSURL, observe: o.Observe}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program to start the agents: %w", err)
	}
	dir, temporary, err := demoDir(f.dir)
	if err != nil {
		return err
	}
	layout := newDemoLayout(dir)
	d := &demoRun{out: o.Stdout, layout: layout}
	if err := d.open(ctx, f); err != nil {
		if temporary {
			_ = os.RemoveAll(dir) // nothing ran: nothing to look at
		}
		return err
	}
	defer d.obs.close()
	be := d.be
	fmt.Fprintf(d.out, "switchboard demo: a Feishu user asks researcher; researcher delegates to coder through the mailbox.\n")
	contents := "configs, logs, Feishu outbox"
	if st := be.stored(); st != "" {
		contents = "configs, logs, " + st + ", Feishu outbox"
	}
	fmt.Fprintf(d.out, "folder: %s (%s)\n", dir, contents)
	if line := be.describe(dir); line != "" {
		fmt.Fprintln(d.out, line)
	}
	fmt.Fprintln(d.out)
	err = d.converse(ctx, exe, o.Environ, f)
	var metricsErr error
	if err == nil && d.obs != nil {
		metricsErr = d.printMetrics(ctx) // while the agents still serve them
	}
	if stopErr := d.stopAll(); err == nil {
		err = stopErr // an agent that ended badly says more than its missing metrics
	}
	if err == nil {
		err = metricsErr
	}
	be.close() // once the agents stopped
	if err == nil && d.obs != nil {
		err = d.printTraces()
	}
	if err != nil {
		return err
	}
	if temporary && f.observe {
		fmt.Fprintf(d.out, "kept %s (remove it when done)\n", dir)
	}
	if temporary && !f.keep && !f.observe {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("remove the demo's folder: %w", err)
		}
		kept := "configs and logs"
		if st := be.stored(); st != "" {
			kept = "configs, logs and " + st
		}
		fmt.Fprintf(d.out, "removed %s (run with --dir DIR to keep the %s)\n", dir, kept)
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
	if d.obs != nil {
		env = observeEnv(env)
	}
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
		ag.running = line
		desc := "mailbox only, capabilities " + strings.Join(demoCoderCapabilities, ", ")
		if m := webhookAttr().FindStringSubmatch(line); m != nil {
			d.webhook = m[1]
			desc = "Feishu stub at " + d.webhook + " + mailbox"
		}
		fmt.Fprintf(d.out, "started %-10s (pid %d): %s\n", ag.name, ag.cmd.Process.Pid, desc)
	}
	if d.webhook == "" {
		return errors.New("researcher runs but did not log its Feishu webhook address")
	}
	online, err := onlineAgents(ctx, d.be)
	if err != nil {
		return err
	}
	for _, name := range []string{demoResearcher, demoCoder} {
		if !slices.Contains(online, name) {
			return fmt.Errorf("%s runs but is not online in the registry (online: %v)", name, online)
		}
	}
	fmt.Fprintf(d.out, "both agents are registered online in %s\n\n", d.be.where())
	if d.obs != nil {
		d.printLook()
	}
	return nil
}

// ask posts the user's message to the webhook and waits for the answer in
// the user's chat. It returns the chat (the message and the replies) and
// the number of replies.
func (d *demoRun) ask(ctx context.Context) ([]demoLine, int, error) {
	asked := time.Now()
	event := feishustub.MessageEvent("ev_demo_1", demoUser, demoChat, "om_demo_1", demoAsk, asked)
	fmt.Fprintf(d.out, "POST %s  (im.message.receive_v1 from %s in chat %s: %q)\n", d.webhook, demoUser, demoChat, demoAsk)
	if err := feishustub.PostEvent(ctx, d.webhook, event); err != nil {
		return nil, 0, err
	}
	lines := []demoLine{{at: asked, who: "user → " + demoResearcher, via: "feishu", text: demoAsk}}
	var got int
	for {
		replies, err := feishustub.NextReplies(ctx, d.webhook, demoChat, got, 10*time.Second)
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
	mail, err := d.be.mail(ctx)
	if err != nil {
		return fmt.Errorf("read the mailbox: %w", err)
	}
	fmt.Fprintf(d.out, "\nthe conversation in Feishu chat %s and the mailbox (seconds since the user's message):\n", demoChat)
	transcript(d.out, append(chat, mail...))
	fmt.Fprintf(d.out, "\nthe user's chat %s got the answer %q (also in %s)\n", demoChat, demoAnswer, d.layout.outbox)
	if d.obs != nil {
		d.noteTrace(mail)
	}
	return nil
}
