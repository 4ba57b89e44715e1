package fsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Environment of a registry writer process (TestRegistryHelperProcess).
const (
	helperEnvRole     = "FSSTORE_TEST_ROLE"
	helperEnvRoot     = "FSSTORE_TEST_ROOT"
	helperEnvAgent    = "FSSTORE_TEST_AGENT"
	helperEnvDeadline = "FSSTORE_TEST_DEADLINE"
	helperEnvStop     = "FSSTORE_TEST_STOP"
	helperRoleWriter  = "registry-writer"
)

// TestRegistryHelperProcess is not a test: it is the body of the writer
// processes that TestRegistryManyProcessesLoseNothing starts by running the
// test binary again. It heartbeats one agent's card as fast as it can until
// the stop file exists (or, as a safety net, the deadline passes) and prints
// how many updates it made.
func TestRegistryHelperProcess(t *testing.T) {
	if os.Getenv(helperEnvRole) != helperRoleWriter {
		t.Skip("run by TestRegistryManyProcessesLoseNothing")
	}
	deadlineNS, err := strconv.ParseInt(os.Getenv(helperEnvDeadline), 10, 64)
	require.NoError(t, err)
	deadline := time.Unix(0, deadlineNS)
	agent := os.Getenv(helperEnvAgent)

	s, err := Open(Options{Root: os.Getenv(helperEnvRoot)})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(10*time.Second))
	defer cancel()

	stop := os.Getenv(helperEnvStop)
	updates := 0
	for time.Now().Before(deadline) {
		if _, err := os.Stat(stop); err == nil {
			break
		}
		_, err := s.UpdateCard(ctx, agent, func(c *envelope.Card) {
			// max_concurrent_tasks counts the updates, so a lost one
			// shows as a short count.
			c.MaxConcurrentTasks++
			c.LastHeartbeat = envelope.NewTime(time.Now())
			c.PID = os.Getpid()
		})
		require.NoError(t, err)
		updates++
	}
	fmt.Printf("\nupdates=%d\n", updates)
}

// TestRegistryManyProcessesLoseNothing runs 8 processes that update their
// own cards as fast as they can until this process has read the registry
// fullSamples times with all of them in it, on a registry that
// already holds nanobot's agents, while this process reads the registry
// in a loop. Every read parses (no torn file), once all 8 agents have
// appeared every later read holds all of them and nanobot's agents
// unchanged, and in the end every process's last update is there.
func TestRegistryManyProcessesLoseNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts processes for a few seconds")
	}
	const writers = 8
	root := t.TempDir()
	golden, err := os.ReadFile(filepath.Join("testdata", "nanobot_registry.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, registryName), golden, 0o600))
	var nanobot map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(golden, &nanobot))

	s, err := Open(Options{Root: root})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()

	// The writers stop when the stop file appears: once enough reads were
	// taken with all of them registered, however loaded the machine is.
	const wantFull = 50
	stop := filepath.Join(t.TempDir(), "stop")
	deadline := time.Now().Add(testkit.WaitLimit)
	type result struct {
		agent string
		out   bytes.Buffer
		err   error
	}
	results := make([]*result, writers)
	done := make(chan *result, writers)
	for i := range writers {
		r := &result{agent: fmt.Sprintf("writer-%d", i)}
		results[i] = r
		cmd := testkit.HelperCommand("TestRegistryHelperProcess",
			helperEnvRole+"="+helperRoleWriter,
			helperEnvRoot+"="+root,
			helperEnvAgent+"="+r.agent,
			helperEnvDeadline+"="+strconv.FormatInt(deadline.UnixNano(), 10),
			helperEnvStop+"="+stop,
		)
		cmd.Stdout, cmd.Stderr = &r.out, &r.out
		require.NoError(t, cmd.Start())
		go func() {
			r.err = cmd.Wait()
			done <- r
		}()
	}

	samples, fullSamples, finished := 0, 0, 0
	allSeen := false
	for finished < writers {
		select {
		case <-done:
			finished++
			continue
		default:
		}
		samples++
		raw, err := os.ReadFile(filepath.Join(root, registryName))
		require.NoError(t, err)
		var reg map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &reg), "torn registry read in sample %d:\n%s", samples, raw)
		for id, entry := range nanobot {
			require.Equal(t, compactJSON(t, entry), compactJSON(t, reg[id]), "nanobot's %s changed", id)
		}
		cards, err := s.Cards(ctx)
		require.NoError(t, err)

		present := 0
		for _, r := range results {
			if _, ok := reg[r.agent]; ok {
				present++
			}
		}
		if allSeen {
			require.Equal(t, writers, present, "an agent vanished from the registry in sample %d", samples)
			require.Len(t, cards, writers+len(nanobot))
			fullSamples++
			if fullSamples == wantFull {
				require.NoError(t, os.WriteFile(stop, nil, 0o600))
			}
		}
		allSeen = allSeen || present == writers
	}
	for _, r := range results {
		require.NoError(t, r.err, "%s:\n%s", r.agent, r.out.String())
	}
	require.Positive(t, fullSamples, "no sample was taken while all %d writers were registered", writers)
	t.Logf("%d samples, %d with all writers", samples, fullSamples)

	total := 0
	for _, r := range results {
		_, after, ok := strings.Cut(r.out.String(), "\nupdates=")
		require.True(t, ok, "%s printed no count:\n%s", r.agent, r.out.String())
		n, err := strconv.Atoi(strings.Fields(after)[0])
		require.NoError(t, err)
		card, err := s.Card(ctx, r.agent)
		require.NoError(t, err)
		assert.Equal(t, n, card.MaxConcurrentTasks, "%s made %d updates, the registry holds %d", r.agent, n, card.MaxConcurrentTasks)
		assert.NotZero(t, card.PID)
		total += n
	}
	t.Logf("%d updates in all", total)
}
