package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	feishustub "github.com/switchboard-dev/switchboard/internal/feishustub"
)

// keep leaves the agents running until ctx ends or one of them exits.
func (d *demoRun) keep(ctx context.Context, seen int) {
	fmt.Fprintf(d.out, "\nboth agents keep running; Ctrl-C stops them. Try:\n")
	fmt.Fprintf(d.out, "  curl -s %s -H 'Content-Type: application/json' -d '%s'\n", d.webhook,
		shortEvent(demoUser, demoChat, "ask coder to count words in hello big world"))
	fmt.Fprintf(d.out, "  curl -s '%s'   # then after=<next> of each answer\n", feishustub.RepliesURL(d.webhook, demoChat, seen, 10*time.Second))
	if d.be.kind == demoFS {
		fmt.Fprintf(d.out, "  switchboard --root %s agents\n", d.layout.root)
	}
	fmt.Fprintf(d.out, "  tail -f %s %s\n", d.layout.log(demoResearcher), d.layout.log(demoCoder))
	if d.obs != nil && d.obs.msgID != "" {
		fmt.Fprintf(d.out, "  switchboard %s thread %s   # the conversation's messages and trace id; the trace trees come at Ctrl-C\n",
			d.storeFlags(), d.obs.msgID)
	}
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
	offline, err := offlineAgents(d.be, names)
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
