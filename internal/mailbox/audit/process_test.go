package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Environment of a writer process (TestAuditWriterProcess).
const (
	envChild = "SWITCHBOARD_AUDIT_CHILD" // the process's number
	envDir   = "SWITCHBOARD_AUDIT_DIR"
	envLines = "SWITCHBOARD_AUDIT_LINES"
)

// payloadFor is the ref of line i of process p: its size varies from a
// few bytes to well past PIPE_BUF (4096), and its content can be checked.
func payloadFor(p, i int) string {
	n := (i * 7919) % 9000
	return fmt.Sprintf("%d/%d:", p, i) + strings.Repeat(string(rune('a'+(p+i)%26)), n)
}

// TestAuditWriterProcess is not a test: it is the body of a writer
// process that the multi-process test starts by re-running the test
// binary. It waits for its standard input to close (all writers
// started), then appends its lines as fast as it can.
func TestAuditWriterProcess(t *testing.T) {
	p, err := strconv.Atoi(os.Getenv(envChild))
	if err != nil {
		t.Skip("runs only as a child of TestManyProcessesAppendWholeLines")
	}
	lines, _ := strconv.Atoi(os.Getenv(envLines))
	w, err := Open(os.Getenv(envDir), Options{MaxBytes: 512 << 10, Keep: 10000})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	_, _ = io.Copy(io.Discard, os.Stdin) // the start signal
	for i := range lines {
		ev := store.Event{Kind: store.EventSent, Agent: "p" + strconv.Itoa(p), MessageID: strconv.Itoa(i), Ref: payloadFor(p, i)}
		if err := w.Append(ev); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
	}
	os.Exit(0)
}

// Many processes append to one log at once, with lines larger than
// PIPE_BUF and rotation every half MiB: every line is whole and
// uninterleaved, none is lost or doubled, and each process's lines keep
// their order across the rotated files.
func TestManyProcessesAppendWholeLines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	const procs, lines = 6, 300
	var cmds []*exec.Cmd
	var starts []io.WriteCloser
	for p := range procs {
		cmd := testkit.HelperCommand("TestAuditWriterProcess", envChild+"="+strconv.Itoa(p), envDir+"="+dir,
			envLines+"="+strconv.Itoa(lines))
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		cmds, starts = append(cmds, cmd), append(starts, stdin)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("process %d stderr: %s", p, stderr.String())
			}
		})
	}
	for _, s := range starts {
		s.Close() // go
	}
	for p, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "writer process %d", p)
	}

	files, err := Files(dir)
	require.NoError(t, err)
	require.Greater(t, len(files), 10, "the log rotated many times")
	next := make([]int, procs)
	total := 0
	for _, path := range files {
		f, err := os.Open(path)
		require.NoError(t, err)
		r := bufio.NewReaderSize(f, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err == io.EOF {
				assert.Empty(t, line, "%s ends with a whole line", filepath.Base(path))
				break
			}
			require.NoError(t, err)
			var e Entry
			require.NoError(t, jsonUnmarshal(line, &e), "a whole JSON line in %s", filepath.Base(path))
			p, err := strconv.Atoi(strings.TrimPrefix(e.Agent, "p"))
			require.NoError(t, err)
			require.Equal(t, strconv.Itoa(next[p]), e.MessageID, "process %d's lines in order, none lost or doubled", p)
			require.True(t, payloadFor(p, next[p]) == e.Ref, "line %d of process %d intact", next[p], p)
			next[p]++
			total++
		}
		f.Close()
	}
	assert.Equal(t, procs*lines, total)
	for p, n := range next {
		assert.Equal(t, lines, n, "process %d", p)
	}
}

func jsonUnmarshal(line string, e *Entry) error {
	return json.Unmarshal([]byte(line), e)
}
