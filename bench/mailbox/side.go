package main

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// defaultNanobotN is the messages of each side-by-side run.
const defaultNanobotN = 20000

// contender is one way of writing or draining n messages, measured in a
// tree of its own.
type contender struct {
	key        string // names its results and its trees
	name       string // for people
	durability string
	kind       string // kindNanobot, kindSwitchboard or kindRaw
	peer       string // the raw contender a switchboard one is compared with
	// run does the work in root and returns what it took; algo is set by
	// the nanobot contenders only, and gives a second result, key+"-process"
	// being the whole process.
	run func(ctx context.Context, root string) (procTimes, error)
}

// The kinds of contender.
const (
	kindNanobot     = "nanobot"
	kindSwitchboard = "switchboard"
	kindRaw         = "raw"
)

// sideBySide writes and drains the same n messages with nanobot's
// algorithm, switchboard and the raw file operations, in one run on one
// disk, and prints their rates and ratios.
func (e *runEnv) sideBySide(ctx context.Context) error {
	n := e.opts.count(defaultNanobotN)
	t, err := e.prepareTools(ctx)
	if err != nil {
		return err
	}
	rep := newSideReport(e, n)
	fmt.Fprintf(e.out, "\n== nanobot mode: %d messages, %d round(s); each contender as it finishes:\n", n, e.opts.rounds)
	master := ""
	for round := range e.opts.rounds {
		tree, err := e.writeRound(ctx, t, rep, round, n)
		if err != nil {
			return fmt.Errorf("write, round %d: %w", round+1, err)
		}
		if master == "" {
			master = tree
		}
	}
	for round := range e.opts.rounds {
		if err := e.drainRound(ctx, t, rep, round, n, master); err != nil {
			return fmt.Errorf("drain, round %d: %w", round+1, err)
		}
	}
	return rep.finish()
}

// drainContenders are the ways of draining a tree of n waiting messages.
func (e *runEnv) drainContenders(t *tools, n int) []contender {
	cs := []contender{{key: "nanobot", name: "nanobot poll()+mark_processed()", durability: "none", kind: kindNanobot,
		run: func(ctx context.Context, root string) (procTimes, error) {
			return t.nanobot(ctx, "drain", "--root", root, "--agent", receiverID, "--n", strconv.Itoa(n))
		}}}
	for _, fsync := range e.opts.durabilities() {
		peer := "raw-0"
		if fsync {
			peer = "raw-64"
		}
		cs = append(cs, contender{key: "switchboard-" + onOffKey(fsync),
			name: "switchboard recv --count N", durability: onOff(fsync), kind: kindSwitchboard, peer: peer,
			run: func(ctx context.Context, root string) (procTimes, error) { return t.recv(ctx, root, n, fsync) }})
	}
	for _, every := range []int{1, 64, 0} {
		d := "fsync every rename"
		switch every {
		case 0:
			d = "none"
		case 64:
			d = "fsync per 64 renames"
		}
		cs = append(cs, contender{key: "raw-" + strconv.Itoa(every), name: "raw rename inbox/ -> processed/",
			durability: d, kind: kindRaw,
			run: func(ctx context.Context, root string) (procTimes, error) {
				took, err := rawDrain(ctx, root, every, false)
				return procTimes{process: took}, err
			}})
	}
	cs = append(cs, contender{key: "rawread-0", name: "raw read + rename inbox/ -> processed/",
		durability: "none", kind: kindRaw,
		run: func(ctx context.Context, root string) (procTimes, error) {
			took, err := rawDrain(ctx, root, 0, true)
			return procTimes{process: took}, err
		}})
	return cs
}

// drainRound drains a copy of the master tree with each contender, in an
// order that turns by one each round so that no contender always runs
// first or last.
func (e *runEnv) drainRound(ctx context.Context, t *tools, rep *sideReport, round, n int, master string) error {
	cs := e.drainContenders(t, n)
	for i := range cs {
		c := cs[(i+round)%len(cs)]
		root, err := e.tree(fmt.Sprintf("drain-%d-%s", round+1, c.key))
		if err != nil {
			return err
		}
		if err := copyTree(master, root); err != nil {
			return fmt.Errorf("copy the tree for %s: %w", c.key, err)
		}
		syncAll() // the copy is on the disk before the clock starts
		took, err := c.run(ctx, root)
		if err != nil {
			return fmt.Errorf("%s: %w", c.key, err)
		}
		if err := checkDrained(root, n); err != nil {
			return fmt.Errorf("%s: %w", c.key, err)
		}
		rep.add("drain", c, took)
	}
	return nil
}

// writeRound writes n messages with each write contender into trees of
// their own and returns the tree nanobot's algorithm wrote.
func (e *runEnv) writeRound(ctx context.Context, t *tools, rep *sideReport, round, n int) (string, error) {
	nbRoot, err := e.tree(fmt.Sprintf("write-%d-nanobot", round+1))
	if err != nil {
		return "", err
	}
	nb := contender{key: "nanobot", name: "nanobot send() x N", durability: "none", kind: kindNanobot,
		run: func(ctx context.Context, root string) (procTimes, error) {
			return t.nanobot(ctx, "write", "--root", root, "--from", senderID, "--to", receiverID,
				"--n", strconv.Itoa(n), "--size", strconv.Itoa(e.opts.size))
		}}
	took, err := nb.run(ctx, nbRoot)
	if err != nil {
		return "", err
	}
	rep.add("write", nb, took)
	names, err := messageNames(inboxOf(nbRoot))
	if err != nil || len(names) != n {
		return "", fmt.Errorf("nanobot's send wrote %d messages, want %d (%v)", len(names), n, err)
	}
	payload, err := fileSize(inboxOf(nbRoot), names[0])
	if err != nil {
		return "", err
	}
	rep.fileBytes = payload
	for _, fsync := range e.opts.durabilities() {
		root, err := e.tree(fmt.Sprintf("write-%d-switchboard-%s", round+1, onOffKey(fsync)))
		if err != nil {
			return "", err
		}
		took, err := e.deliverN(ctx, root, n, fsync)
		if err != nil {
			return "", err
		}
		peer := "rawwrite-" + onOffKey(fsync)
		rep.add("write", contender{key: "switchboard-" + onOffKey(fsync), name: "switchboard Deliver x N (store)",
			durability: onOff(fsync), kind: kindSwitchboard, peer: peer}, procTimes{process: took})
	}
	for _, fsync := range []bool{true, false} {
		dir, err := e.tree(fmt.Sprintf("write-%d-raw-%s", round+1, onOffKey(fsync)))
		if err != nil {
			return "", err
		}
		start := time.Now()
		if _, err := rawOps(ctx, dir, n, make([]byte, payload), fsync); err != nil {
			return "", fmt.Errorf("raw writes: %w", err)
		}
		d := "none"
		if fsync {
			d = "fsync file + folder"
		}
		rep.add("write", contender{key: "rawwrite-" + onOffKey(fsync), name: "raw create+write+link",
			durability: d, kind: kindRaw}, procTimes{process: time.Since(start)})
	}
	return nbRoot, nil
}

// deliverN delivers n messages through the store a mailbox channel
// opens, as `switchboard send` does, one after the other, and returns the
// time from the first to the last.
func (e *runEnv) deliverN(ctx context.Context, root string, n int, fsync bool) (time.Duration, error) {
	s, err := openSender(root, fsync, e.opts.size)
	if err != nil {
		return 0, err
	}
	defer s.close()
	start := time.Now()
	for seq := range n {
		if _, _, err := s.send(ctx, seq); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// onOffKey is onOff for keys and folder names.
func onOffKey(fsync bool) string {
	if fsync {
		return "fsync"
	}
	return "nofsync"
}
