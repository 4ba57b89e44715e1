package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// Issue 29, "no lock that a process can starve": the agent process that
// serves the root's shared watcher, and then the ones caught holding
// _registry.lock in the middle of a merge while a crowd registers, are
// killed with SIGKILL. Another agent takes the watcher over (every
// survivor gets the mail sent right after the kill), every agent of the
// crowd still registers, every card an agent reported registered is in
// _registry.json, nothing stays queued, and every survivor is marked
// offline when it stops. Linux: the lock holders are read from
// /proc/locks.
func TestKilledLockHoldersAreTakenOver(t *testing.T) {
	if testing.Short() {
		t.Skip("starts agent processes")
	}
	if runtime.GOOS != "linux" {
		t.Skip("finds the lock holders in /proc/locks")
	}
	n := 40
	if slices.Contains(buildFlags, "-race") {
		n = 16
	}
	limit := 30*time.Second + time.Duration(n)*500*time.Millisecond
	s := newSandbox(t)
	live := map[int]*proc{} // by pid
	var order []int
	startAgents := func(first, count int) []*proc {
		ps := make([]*proc, count)
		for i := range ps {
			ps[i] = s.start("recv", manyAgentID(first+i), "--json")
			live[ps[i].cmd.Process.Pid] = ps[i]
			order = append(order, ps[i].cmd.Process.Pid)
		}
		return ps
	}
	idOf := map[*proc]string{}
	for i, p := range startAgents(0, n) {
		idOf[p] = manyAgentID(i)
	}
	deadline := time.Now().Add(limit)
	for _, p := range live {
		awaitLine(t, p, p.stderr, deadline, func(l string) bool { return strings.HasPrefix(l, "listening as ") }, idOf[p]+" listening")
	}
	kill := func(p *proc) {
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
		<-p.done
		delete(live, p.cmd.Process.Pid)
	}

	// The shared watcher's server dies; mail sent at once reaches every
	// survivor, and another agent serves the root.
	watchLock := filepath.Join(s.root, "_watch.lock")
	server := awaitHolder(t, watchLock, live, deadline)
	kill(server)
	st, err := fsstore.Open(fsstore.Options{Root: s.root, NoIndex: true})
	require.NoError(t, err)
	defer st.Close()
	want := map[*proc]string{}
	for _, p := range live {
		m := &envelope.Message{ID: envelope.NewID(), From: "tester", To: idOf[p], Timestamp: envelope.NewTime(time.Now()),
			Type: envelope.TypeMessage, TTL: 3, Trace: []string{"tester"},
			Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("after the watcher died")}}}
		want[p] = m.ID
		require.NoError(t, st.Deliver(context.Background(), m))
	}
	deadline = time.Now().Add(limit)
	for p, id := range want {
		awaitLine(t, p, p.stdout, deadline, func(l string) bool { return strings.Contains(l, id) }, idOf[p]+" receiving after the kill")
	}
	awaitHolder(t, watchLock, live, deadline)

	// A crowd registers; whoever is seen holding _registry.lock (merging
	// the queue into the registry) dies, up to three of them.
	regLock := filepath.Join(s.root, "_registry.lock")
	crowd := startAgents(n, n)
	for i, p := range crowd {
		idOf[p] = manyAgentID(n + i)
	}
	killed := 0
	deadline = time.Now().Add(limit)
	for i := 0; killed < 3 && time.Now().Before(deadline); i++ {
		if i%500 == 0 && allSaid(crowd, live) {
			break
		}
		if pid, ok := flockHolder(regLock); ok {
			if p := live[pid]; p != nil {
				kill(p)
				killed++
			}
		}
	}
	require.NotZero(t, killed, "no agent was seen holding _registry.lock while the crowd registered")
	registered := map[string]bool{}
	for _, p := range crowd {
		if live[p.cmd.Process.Pid] == nil {
			if strings.Contains(p.stderrSoFar(), "listening as ") {
				registered[idOf[p]] = true // killed after it said so: its card must stay
			}
			continue
		}
		awaitLine(t, p, p.stderr, deadline, func(l string) bool { return strings.HasPrefix(l, "listening as ") }, idOf[p]+" listening after the kills")
		registered[idOf[p]] = true
	}
	t.Logf("killed %d agents holding _registry.lock; %d of the crowd registered", killed, len(registered))
	cards := readCards(t, s.root)
	for id := range registered {
		assert.Contains(t, cards, id, "%s said it listens: its card is in the registry", id)
	}

	for _, p := range live {
		p.signal(syscall.SIGTERM)
	}
	deadline = time.Now().Add(limit)
	for _, p := range live {
		select {
		case <-p.done:
			assert.Zero(t, p.code, "%s exit status; stderr:\n%s", idOf[p], p.stderrSoFar())
		case <-time.After(time.Until(deadline)):
			t.Fatalf("%s still running %s after SIGTERM", idOf[p], limit)
		}
	}
	cards = readCards(t, s.root)
	for _, p := range live {
		assert.Equal(t, envelope.StatusOffline, cards[idOf[p]].Status, "%s marked offline", idOf[p])
	}
	queued, _ := filepath.Glob(filepath.Join(s.root, "_registry.queue", "*.json"))
	assert.Empty(t, queued, "nothing left queued")
}

// allSaid reports whether every live process of ps said it listens.
func allSaid(ps []*proc, live map[int]*proc) bool {
	for _, p := range ps {
		if live[p.cmd.Process.Pid] != nil && !strings.Contains(p.stderrSoFar(), "listening as ") {
			return false
		}
	}
	return true
}

// awaitHolder waits until one of live holds the flock on path.
func awaitHolder(t *testing.T, path string, live map[int]*proc, deadline time.Time) *proc {
	t.Helper()
	for {
		if pid, ok := flockHolder(path); ok && live[pid] != nil {
			return live[pid]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no live agent holds %s", filepath.Base(path))
		}
		time.Sleep(10 * time.Millisecond) // polling /proc/locks: the kernel sends no event
	}
}

// flockHolder returns the process holding the flock on path, from
// /proc/locks.
func flockHolder(path string) (int, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	ino := fi.Sys().(*syscall.Stat_t).Ino
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		// "1: FLOCK  ADVISORY  WRITE 1234 fd:01:56789 0 EOF"; waiters say "->".
		if len(f) < 6 || f[1] != "FLOCK" {
			continue
		}
		dev := strings.Split(f[5], ":")
		if len(dev) != 3 || dev[2] != strconv.FormatUint(ino, 10) {
			continue
		}
		if pid, err := strconv.Atoi(f[4]); err == nil {
			return pid, true
		}
	}
	return 0, false
}

// readCards parses root's _registry.json.
func readCards(t *testing.T, root string) map[string]envelope.Card {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "_registry.json"))
	require.NoError(t, err)
	var cards map[string]envelope.Card
	require.NoError(t, json.Unmarshal(data, &cards), fmt.Sprintf("%.200s", data))
	return cards
}
