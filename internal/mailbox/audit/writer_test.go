package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func readAll(t *testing.T, dir string, f Filter) ([]Entry, Stats) {
	t.Helper()
	var out []Entry
	st, err := Read(context.Background(), dir, f, func(e Entry) bool { out = append(out, e); return true })
	require.NoError(t, err)
	return out, st
}

func TestAppendAndReadBack(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{})
	require.NoError(t, err)
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	events := []store.Event{
		{Time: t0, Kind: store.EventSent, Agent: "coder", From: "researcher", MessageID: "m1", ThreadID: "m1"},
		{Time: t0.Add(time.Second), Kind: store.EventClaimed, Agent: "coder", From: "researcher", MessageID: "m1"},
		{Time: t0.Add(2 * time.Second), Kind: store.EventProcessed, Agent: "coder", From: "researcher", MessageID: "m1"},
		{Time: t0.Add(3 * time.Second), Kind: store.EventSent, Agent: "researcher", From: "coder", MessageID: "m2", TaskID: "t1"},
	}
	for _, ev := range events {
		require.NoError(t, w.Append(ev))
	}
	require.NoError(t, w.Close())
	assert.ErrorIs(t, w.Append(events[0]), store.ErrClosed)

	fi, err := os.Stat(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	all, st := readAll(t, dir, Filter{})
	require.Len(t, all, 4)
	assert.Equal(t, Stats{Lines: 4}, st)
	assert.Equal(t, events[0], all[0].Event)
	assert.Equal(t, os.Getpid(), all[0].PID)

	for _, tt := range []struct {
		name string
		f    Filter
		want []string // message ids, with the kind
	}{
		{"agent as inbox or sender", Filter{Agent: "researcher"}, []string{"sent m1", "claimed m1", "processed m1", "sent m2"}},
		{"agent as inbox only", Filter{Agent: "coder", Kinds: []store.EventKind{store.EventSent}}, []string{"sent m1", "sent m2"}},
		{"kinds", Filter{Kinds: []store.EventKind{store.EventClaimed, store.EventProcessed}}, []string{"claimed m1", "processed m1"}},
		{"since", Filter{Since: t0.Add(2 * time.Second)}, []string{"processed m1", "sent m2"}},
		{"until", Filter{Until: t0.Add(time.Second)}, []string{"sent m1"}},
		{"message", Filter{MessageID: "m2"}, []string{"sent m2"}},
		{"thread", Filter{ThreadID: "m1"}, []string{"sent m1"}},
		{"task", Filter{TaskID: "t1"}, []string{"sent m2"}},
		{"nobody", Filter{Agent: "planner"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := readAll(t, dir, tt.f)
			var ids []string
			for _, e := range got {
				ids = append(ids, string(e.Kind)+" "+e.MessageID)
			}
			assert.Equal(t, tt.want, ids)
		})
	}
}

func TestReadSkipsBadLinesAndMissingLog(t *testing.T) {
	dir := t.TempDir()
	got, st := readAll(t, dir, Filter{})
	assert.Empty(t, got)
	assert.Equal(t, Stats{}, st)

	w, err := Open(dir, Options{})
	require.NoError(t, err)
	require.NoError(t, w.Append(store.Event{Kind: store.EventSent, Agent: "a", MessageID: "1"}))
	require.NoError(t, w.Close())
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString("not json\n{\"kind\":\"\"}\n" + strings.Repeat("x", maxLine+10) + "\n{\"kind\":\"sent\",\"agent\":\"a\",\"message_id\":\"2\"}\n{\"kind\":\"se")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	got, st = readAll(t, dir, Filter{})
	require.Len(t, got, 2)
	assert.Equal(t, "2", got[1].MessageID)
	assert.Equal(t, Stats{Lines: 6, Bad: 4}, st, "bad JSON, no kind, over-long and torn last line are skipped")
}

func TestLongReasonIsClipped(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{})
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Append(store.Event{Kind: store.EventQuarantined, Agent: "a", Reason: strings.Repeat("r", 10*maxField)}))
	got, _ := readAll(t, dir, Filter{})
	require.Len(t, got, 1)
	assert.Len(t, got[0].Reason, maxField+3)
}

func TestRotationKeepsNewestFiles(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{MaxBytes: 1000, Keep: 2})
	require.NoError(t, err)
	defer w.Close()
	const n = 60
	for i := range n {
		require.NoError(t, w.Append(store.Event{Kind: store.EventSent, Agent: "a", MessageID: fmt.Sprint(i)}))
	}
	files, err := Files(dir)
	require.NoError(t, err)
	require.Len(t, files, 3, "the current file and two rotated ones")
	assert.Equal(t, filepath.Join(dir, FileName+".2"), files[0])
	assert.Equal(t, filepath.Join(dir, FileName), files[2])
	for _, p := range files {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.LessOrEqual(t, fi.Size(), int64(1000))
	}
	got, st := readAll(t, dir, Filter{})
	assert.Zero(t, st.Bad)
	require.NotEmpty(t, got)
	assert.Less(t, len(got), n, "the oldest lines were dropped")
	for i, e := range got {
		assert.Equal(t, fmt.Sprint(n-len(got)+i), e.MessageID, "the newest lines, in order")
	}
}

func TestRotationWithKeepNoneDeletes(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{MaxBytes: 300, Keep: -1})
	require.NoError(t, err)
	defer w.Close()
	for i := range 20 {
		require.NoError(t, w.Append(store.Event{Kind: store.EventSent, Agent: "a", MessageID: fmt.Sprint(i)}))
	}
	files, err := Files(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, FileName)}, files)
}

// Writers in one process, each with its own Writer (as two stores would
// have) and several goroutines on each, rotating often: every line whole,
// none lost.
func TestConcurrentWritersInOneProcess(t *testing.T) {
	dir := t.TempDir()
	const writers, goroutines, lines = 3, 4, 200
	var wg sync.WaitGroup
	for wi := range writers {
		w, err := Open(dir, Options{MaxBytes: 64 << 10, Keep: 1000})
		require.NoError(t, err)
		defer w.Close()
		for g := range goroutines {
			wg.Go(func() {
				for i := range lines {
					ev := store.Event{Kind: store.EventSent, Agent: fmt.Sprintf("w%d-g%d", wi, g),
						MessageID: fmt.Sprint(i), Reason: strings.Repeat("z", i*10)}
					if err := w.Append(ev); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	got, st := readAll(t, dir, Filter{})
	assert.Zero(t, st.Bad)
	assert.Len(t, got, writers*goroutines*lines)
	next := map[string]int{}
	for _, e := range got {
		assert.Equal(t, fmt.Sprint(next[e.Agent]), e.MessageID, "per writer, in order")
		next[e.Agent]++
		assert.Len(t, e.Reason, next[e.Agent]*10-10)
	}
}

func TestOpenTouchesNothingUntilAppend(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{})
	require.NoError(t, err)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents)
	require.NoError(t, w.Close())

	_, err = Open(filepath.Join(dir, "missing"), Options{})
	assert.Error(t, err)
}
