package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// Issue 29: 200 `recv` agent processes started at once on one root, none
// of them allowed an inotify instance (SWITCHBOARD_WATCH=poll, the
// documented knob: the agent that watches for the root polls, the others
// ask it): every one registers, holds no inotify instance, gets the
// message sent to it and a broadcast to all, and stops cleanly, marked
// offline. (Before, past the 128 inotify instances a user has, agents fell
// back to a 5 s rescan, and 300 agents starved on the registry's lock.)
// With -race the binary is instrumented and each process costs several
// times the memory, so fewer run. The limits scale with the number of
// agents; reaching one is a failure, never a way to let time pass.
func TestManyAgentProcessesWithoutInotify(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 200 processes")
	}
	n := 200
	if slices.Contains(buildFlags, "-race") {
		n = 40
	}
	limit := 60*time.Second + time.Duration(n)*300*time.Millisecond
	s := newSandbox(t)
	s.environ = []string{fsstore.WatchEnv + "=poll"}
	agents := make([]*proc, n)
	for i := range agents {
		agents[i] = s.start("recv", manyAgentID(i), "--json")
	}
	deadline := time.Now().Add(limit)
	for i, p := range agents {
		awaitLine(t, p, p.stderr, deadline, func(l string) bool { return strings.HasPrefix(l, "listening as ") },
			fmt.Sprintf("agent %d listening", i))
	}

	var cards map[string]envelope.Card
	data, err := os.ReadFile(filepath.Join(s.root, "_registry.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &cards), "nanobot's registry parses")
	for i := range agents {
		card, ok := cards[manyAgentID(i)]
		if assert.True(t, ok, "%s registered", manyAgentID(i)) {
			assert.Equal(t, envelope.StatusIdle, card.Status)
		}
	}
	if runtime.GOOS == "linux" {
		assert.Zero(t, inotifyOf(agents), "no agent holds an inotify instance")
	}

	st, err := fsstore.Open(fsstore.Options{Root: s.root, NoIndex: true})
	require.NoError(t, err)
	defer st.Close()
	ids := make([]string, n)
	for i := range agents {
		m := &envelope.Message{ID: envelope.NewID(), From: "tester", To: manyAgentID(i), Timestamp: envelope.NewTime(time.Now()),
			Type: envelope.TypeMessage, TTL: 3, Trace: []string{"tester"},
			Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("for you")}}}
		ids[i] = m.ID
		require.NoError(t, st.Deliver(context.Background(), m))
	}
	deadline = time.Now().Add(limit)
	for i, p := range agents {
		awaitLine(t, p, p.stdout, deadline, func(l string) bool { return strings.Contains(l, ids[i]) },
			fmt.Sprintf("agent %d receiving its message", i))
	}

	s.environ = append(s.environ, fmt.Sprintf("NANOBOT_CHANNELS__MAILBOX__MAX_FANOUT=%d", n),
		"NANOBOT_CHANNELS__MAILBOX__LIMITS__PER_AGENT__RATE=0") // one send to n agents, past perAgent's burst
	s.ok("send", "--from", "tester", "--to", "all", "--text", "to every one")
	deadline = time.Now().Add(limit)
	for i, p := range agents {
		awaitLine(t, p, p.stdout, deadline, func(l string) bool { return strings.Contains(l, "to every one") },
			fmt.Sprintf("agent %d receiving the broadcast", i))
	}

	for _, p := range agents {
		p.signal(syscall.SIGTERM)
	}
	deadline = time.Now().Add(limit)
	for i, p := range agents {
		select {
		case <-p.done:
			assert.Zero(t, p.code, "agent %d exit status; stderr:\n%s", i, p.stderrSoFar())
		case <-time.After(time.Until(deadline)):
			t.Fatalf("agent %d still running %s after SIGTERM", i, limit)
		}
	}
	data, err = os.ReadFile(filepath.Join(s.root, "_registry.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &cards))
	for i := range agents {
		assert.Equal(t, envelope.StatusOffline, cards[manyAgentID(i)].Status, "%s marked offline", manyAgentID(i))
	}
}

func manyAgentID(i int) string { return fmt.Sprintf("agent-%03d", i) }

// awaitLine reads ch until a line matches, failing at EOF or at deadline.
func awaitLine(t *testing.T, p *proc, ch <-chan string, deadline time.Time, match func(string) bool, what string) {
	t.Helper()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		select {
		case line, ok := <-ch:
			if !ok {
				<-p.done
				t.Fatalf("%s: output ended (exit %d), stderr:\n%s", what, p.code, p.stderrSoFar())
			}
			if match(line) {
				return
			}
		case <-timer.C:
			t.Fatalf("%s: not by the deadline; stderr:\n%s", what, p.stderrSoFar())
		}
	}
}

// inotifyOf counts the inotify instances the processes hold.
func inotifyOf(procs []*proc) int {
	n := 0
	for _, p := range procs {
		dir := fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if link, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && link == "anon_inode:inotify" {
				n++
			}
		}
	}
	return n
}
