package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// sendFanouts are the numbers of registered agents the send mode sends
// to (-n replaces them with one).
var sendFanouts = []int{100, 300}

// minSendRounds is the fewest timed sends per fan-out; -rounds raises it.
const minSendRounds = 5

// sendResult is the median of each contender at one fan-out and
// durability.
type sendResult struct {
	agents                         int
	fsync                          bool
	send, rawParallel, rawSeq, cmd time.Duration
}

// sendAll times `switchboard send --from lead --to all` to 100 and 300
// registered agents (time until the command returns, every copy durable
// with fsync on), beside, in the same run and interleaved with it: the raw
// peer (a create+write+fsync+link+folder fsync per recipient, as many at
// once as the command delivers at once), the same one recipient at a time,
// and `switchboard version` (the cost of starting a command at all).
func (e *runEnv) sendAll(ctx context.Context) error {
	bin, err := e.switchboardBinary(ctx)
	if err != nil {
		return err
	}
	t := &tools{switchboard: bin, home: filepath.Join(e.work, "home")}
	if err := os.Mkdir(t.home, 0o700); err != nil {
		return err
	}
	fanouts := sendFanouts
	if e.opts.n > 0 {
		fanouts = []int{e.opts.n}
	}
	rounds := max(e.opts.rounds, minSendRounds)
	fmt.Fprintf(e.out, "\n== send mode: switchboard send --to all, %d timed sends per row (medians), %d at once\n",
		rounds, route.FanoutParallel)
	var results []sendResult
	for _, n := range fanouts {
		for _, fsync := range e.opts.durabilities() {
			r, err := e.sendAllOnce(ctx, t, n, fsync, rounds)
			if err != nil {
				return fmt.Errorf("%d agents, fsync %s: %w", n, onOff(fsync), err)
			}
			results = append(results, r)
		}
	}
	tw := e.table("send --to all: time until the command returns (medians; ratio: send / raw at once)",
		"agents", "fsync", "send --to all", "raw at once", "ratio", "raw one by one", "switchboard version")
	for _, r := range results {
		row(tw, strconv.Itoa(r.agents), onOff(r.fsync), ms(r.send), ms(r.rawParallel),
			fmt.Sprintf("%.2fx", r.send.Seconds()/r.rawParallel.Seconds()), ms(r.rawSeq), ms(r.cmd))
	}
	return tw.Flush()
}

// sendAllOnce times rounds sends to n agents and their peers, one of each
// per round, after a first send (not timed) that makes the recipients'
// folders, as agents that have run have them. It checks that every agent
// got every send.
func (e *runEnv) sendAllOnce(ctx context.Context, t *tools, n int, fsync bool, rounds int) (sendResult, error) {
	root, err := e.tree(fmt.Sprintf("send-%d-%s", n, onOffKey(fsync)))
	if err != nil {
		return sendResult{}, err
	}
	if err := writeRegistry(root, n); err != nil {
		return sendResult{}, err
	}
	text := strings.Repeat("m", e.opts.size)
	send := func() (time.Duration, error) { return t.sendAll(ctx, root, n, fsync, text) }
	if _, err := send(); err != nil {
		return sendResult{}, err
	}
	inbox := filepath.Join(root, agentName(0), "inbox")
	names, err := messageNames(inbox)
	if err != nil || len(names) != 1 {
		return sendResult{}, fmt.Errorf("%s holds %d messages after one send, want 1 (%v)", inbox, len(names), err)
	}
	payload, err := fileSize(inbox, names[0])
	if err != nil {
		return sendResult{}, err
	}
	raw, err := e.tree(fmt.Sprintf("send-%d-%s-raw", n, onOffKey(fsync)))
	if err != nil {
		return sendResult{}, err
	}
	folders, err := makeRawFolders(raw, n)
	if err != nil {
		return sendResult{}, err
	}
	data := bytes.Repeat([]byte{'m'}, payload)
	var took [4][]time.Duration
	for round := range rounds {
		steps := []func() error{
			func() error { d, err := send(); took[0] = append(took[0], d); return err },
			func() error {
				return timed(&took[1], func() error {
					return folders.rawConcurrent(ctx, 2*round*n, n, route.FanoutParallel, data, fsync)
				})
			},
			func() error {
				return timed(&took[2], func() error { return folders.rawConcurrent(ctx, (2*round+1)*n, n, 1, data, fsync) })
			},
			func() error { return timed(&took[3], func() error { return t.version(ctx) }) },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return sendResult{}, err
			}
		}
	}
	for k := range n { // every send reached every agent, once
		inbox := filepath.Join(root, agentName(k), "inbox")
		if names, err := messageNames(inbox); err != nil || len(names) != rounds+1 {
			return sendResult{}, fmt.Errorf("%s holds %d messages after %d sends, want as many (%v)", inbox, len(names), rounds+1, err)
		}
	}
	return sendResult{agents: n, fsync: fsync, send: median(took[0]), rawParallel: median(took[1]),
		rawSeq: median(took[2]), cmd: median(took[3])}, nil
}

// timed runs fn and appends the time it took to *to.
func timed(to *[]time.Duration, fn func() error) error {
	start := time.Now()
	err := fn()
	*to = append(*to, time.Since(start))
	return err
}

// median returns the middle of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// agentName names registered agent k of the send mode.
func agentName(k int) string { return fmt.Sprintf("agent-%03d", k) }

// writeRegistry writes nanobot's _registry.json with n idle agents that
// have just sent a heartbeat.
func writeRegistry(root string, n int) error {
	now := envelope.NewTime(time.Now().UTC())
	cards := make(map[string]envelope.Card, n)
	for k := range n {
		id := agentName(k)
		cards[id] = envelope.Card{AgentID: id, Status: envelope.StatusIdle, Capabilities: []string{},
			AllowFrom: []string{}, CurrentTasks: []string{}, MaxConcurrentTasks: 1, RegisteredAt: now, LastHeartbeat: now}
	}
	data, err := json.Marshal(cards)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "_registry.json"), data, 0o600)
}

// sendAll runs `switchboard --root root send --from lead --to all` to n
// registered agents and returns its process time; it checks that it
// printed n ids.
func (t *tools) sendAll(ctx context.Context, root string, n int, fsync bool, text string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, t.switchboard, "--root", root, "send", "--from", "lead", "--to", "all", "--text", text)
	cmd.Env = append(t.environ(), "NANOBOT_CHANNELS__MAILBOX__MAX_FANOUT="+strconv.Itoa(n),
		"NANOBOT_CHANNELS__MAILBOX__LIMITS__PER_AGENT__RATE=0") // n sends at once, over perAgent's burst
	if !fsync {
		cmd.Env = append(cmd.Env, "NANOBOT_CHANNELS__MAILBOX__FSYNC=false")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("switchboard send --to all: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if ids := strings.Count(stdout.String(), "\n"); ids != n {
		return 0, fmt.Errorf("switchboard send --to all printed %d ids, want %d", ids, n)
	}
	return took, nil
}

// version runs `switchboard version`: the cost of starting a command.
func (t *tools) version(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, t.switchboard, "version")
	cmd.Env = t.environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("switchboard version: %w: %s", err, out)
	}
	return nil
}
