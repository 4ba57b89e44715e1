//go:build linux

package main_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// bigReport is the size of the report that travels between the machines:
// more than the memory a process streaming it may use (maxStreamRSS).
const bigReport = 50 << 20

// maxStreamRSS bounds the peak resident memory of the process that sends
// the report and of the one that fetches it: below the report's size, so
// that neither can have held it whole. The processes run with a soft
// memory limit below it (streamMemLimit), so that the Go runtime gives
// back the memory of the chunks that went through instead of keeping it
// until later: what is left is what the process needs (the program's
// own ~32 MB, and a few MB of heap).
const (
	maxStreamRSS   = 48 << 20
	streamMemLimit = "GOMEMLIMIT=36MiB"
)

// A report delegated from a machine (its own home and workspace) to an
// agent on another, both on one NATS server: the task names the report by
// its uri; the worker's side fetches it with its bytes, hash and type
// intact; neither process holds it in memory (peak RSS below its size).
// Then the object on the server is replaced by other bytes: the fetch is
// refused as corrupt and leaves no file.
func TestArtifactTravelsBetweenMachinesOverNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 50 MB")
	}
	t.Parallel()
	w := newNATSWorld(t)
	lead := w.as(w.agentConf("lead", ""))
	worker := w.as(w.agentConf("worker", ""))
	lead.environ = append(lead.environ, streamMemLimit)
	worker.environ = append(worker.environ, streamMemLimit)
	worker.home = filepath.Join(t.TempDir(), "machine-b") // another machine: another home and workspace
	require.NoError(t, os.Mkdir(worker.home, 0o700))

	report := filepath.Join(lead.home, "q3-report.csv")
	writeRandom(t, report, bigReport)
	want := fileDigest(t, report)

	recv := worker.start("recv", "worker", "--count", "1", "--json")
	recv.awaitStderr("listening as worker")
	id, rss := runRSS(t, lead, "send", "--from", "lead", "--to", "worker", "--type", "task", "--text", "summarise the q3 report",
		"--file", report)
	t.Logf("send --file of %d MB: peak RSS %.1f MB", bigReport>>20, float64(rss)/(1<<20))
	if !raceBuild { // the race detector's shadow memory doubles a process's own
		assert.Less(t, rss, int64(maxStreamRSS), "send streams the file into the object store")
	}

	var line struct {
		Mailbox struct {
			MessageID string          `json:"message_id"`
			Parts     []envelope.Part `json:"parts"`
		} `json:"mailbox"`
	}
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "recv worker")), &line))
	require.Equal(t, 0, recv.wait(), recv.stderrSoFar())
	assert.Equal(t, string(bytes.TrimSpace([]byte(id))), line.Mailbox.MessageID)
	require.Len(t, line.Mailbox.Parts, 2, "the text and the file")
	part := line.Mailbox.Parts[1]
	assert.Equal(t, envelope.PartFile, part.Type)
	assert.Equal(t, "q3-report.csv", part.Name)
	assert.Equal(t, "text/csv", part.MimeType)
	assert.Equal(t, int64(bigReport), part.Size)
	assert.Equal(t, want, part.SHA256)
	assert.Equal(t, envelope.ArtifactURI(want), part.URI)

	got := filepath.Join(worker.home, "report.csv")
	out, rss := runRSS(t, worker, "artifact", "get", part.URI, "--out", got)
	t.Logf("artifact get of %d MB: peak RSS %.1f MB", bigReport>>20, float64(rss)/(1<<20))
	if !raceBuild { // the race detector's shadow memory doubles a process's own
		assert.Less(t, rss, int64(maxStreamRSS), "artifact get streams the object to the file")
	}
	assert.Equal(t, got+"\n", out)
	assert.Equal(t, want, fileDigest(t, got), "the bytes arrive intact")

	// The object on the server replaced by other bytes under its name.
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	obs, err := w.jetStream().ObjectStore(ctx, "mailbox-artifacts") // the default artifactsBucket
	require.NoError(t, err)
	_, err = obs.PutBytes(ctx, want, []byte("not the report"))
	require.NoError(t, err)
	again := filepath.Join(worker.home, "again.csv")
	r := worker.run("artifact", "get", part.URI, "--out", again)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "artifact "+want+" is corrupt")
	assert.NoFileExists(t, again, "a corrupt artifact leaves no file")
}

// rssHelperEnv, set to a folder, makes the test binary run again
// TestHelperMeasureRSS: it runs the command in the folder's "cmd" file and
// writes its output and peak RSS there. The measure needs this step: a
// child started by the test process reports the test process's own peak
// as its own (it begins as a copy of its parent's memory, CLONE_VM, and
// Linux counts that memory's high-water mark in the child's), and this
// process runs the NATS servers of the parallel tests.
const rssHelperEnv = "SWITCHBOARD_TEST_RSS_HELPER"

// TestHelperMeasureRSS is not a test: see rssHelperEnv.
func TestHelperMeasureRSS(t *testing.T) {
	dir := os.Getenv(rssHelperEnv)
	if dir == "" {
		t.Skip("a helper process of runRSS")
	}
	data, err := os.ReadFile(filepath.Join(dir, "cmd"))
	require.NoError(t, err)
	var spec struct {
		Args []string
		Env  []string
		Dir  string
	}
	require.NoError(t, json.Unmarshal(data, &spec))
	out, err := os.Create(filepath.Join(dir, "stdout"))
	require.NoError(t, err)
	errOut, err := os.Create(filepath.Join(dir, "stderr"))
	require.NoError(t, err)
	cmd := exec.Command(spec.Args[0], spec.Args[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = spec.Env, spec.Dir, out, errOut
	runErr := cmd.Run()
	res := fmt.Sprintf("%d %d", cmd.ProcessState.ExitCode(), maxRSS(cmd))
	_ = runErr // the exit code says it
	require.NoError(t, os.WriteFile(filepath.Join(dir, "result"), []byte(res), 0o600))
}

// runRSS runs the binary as s to its end (through TestHelperMeasureRSS),
// requires success, and returns its output and its peak resident memory
// in bytes.
func runRSS(t *testing.T, s *sandbox, args ...string) (string, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	c := s.command(ctx, args...)
	dir := t.TempDir()
	spec, err := json.Marshal(map[string]any{"Args": c.Args, "Env": c.Env, "Dir": c.Dir})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cmd"), spec, 0o600))
	helper := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperMeasureRSS$")
	helper.Env = append(os.Environ(), helperEnv+"=1", rssHelperEnv+"="+dir)
	out, err := helper.CombinedOutput()
	require.NoError(t, err, "helper: %s", out)
	res, err := os.ReadFile(filepath.Join(dir, "result"))
	require.NoError(t, err, "helper: %s", out)
	var code int
	var rss int64
	_, err = fmt.Sscanf(string(res), "%d %d", &code, &rss)
	require.NoError(t, err)
	stdout, _ := os.ReadFile(filepath.Join(dir, "stdout"))
	stderr, _ := os.ReadFile(filepath.Join(dir, "stderr"))
	require.Equal(t, 0, code, "switchboard %v: %s", args, stderr)
	return string(stdout), rss
}

// maxRSS is a finished process's peak resident memory in bytes (Linux
// reports kilobytes).
func maxRSS(cmd *exec.Cmd) int64 {
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return int64(ru.Maxrss) << 10
}

// writeRandom writes n pseudo-random bytes to path.
func writeRandom(t *testing.T, path string, n int64) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	rng := rand.NewChaCha8([32]byte{7})
	_, err = io.CopyN(f, rng, n)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// fileDigest is the SHA-256 of a file, as artifacts are named.
func fileDigest(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}
