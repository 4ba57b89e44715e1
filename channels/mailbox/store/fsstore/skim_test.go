package fsstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// skimmed returns what Skim lists, by ref.
func skimmed(t *testing.T, s *Store, agents ...string) map[string]driver.Skimmed {
	t.Helper()
	out := map[string]driver.Skimmed{}
	var only []string
	if len(agents) > 0 {
		only = agents
	}
	require.NoError(t, s.Skim(context.Background(), only, func(sk driver.Skimmed) bool {
		out[sk.Ref] = sk
		return true
	}))
	return out
}

// browsed returns what Browse lists, as Skim would list it.
func browsed(t *testing.T, s *Store) map[string]driver.Skimmed {
	t.Helper()
	out := map[string]driver.Skimmed{}
	require.NoError(t, s.Browse(context.Background(), func(st driver.Stored) bool {
		out[st.Ref] = driver.Skimmed{Summary: driver.Summarize(st.Message), Agent: st.Agent, Box: st.Box, Ref: st.Ref}
		return true
	}))
	return out
}

// sameSkims compares two listings, times by instant.
func sameSkims(t *testing.T, want, got map[string]driver.Skimmed) {
	t.Helper()
	require.Len(t, got, len(want))
	for ref, w := range want {
		g, ok := got[ref]
		require.True(t, ok, ref)
		assert.True(t, w.Summary.Timestamp.Equal(g.Summary.Timestamp), ref)
		assert.True(t, w.Summary.ReplyBy.Equal(g.Summary.ReplyBy), ref)
		w.Summary.Timestamp, g.Summary.Timestamp, w.Summary.ReplyBy, g.Summary.ReplyBy = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if w.Summary.Task != nil && g.Summary.Task != nil {
			assert.True(t, w.Summary.Task.Deadline.Equal(g.Summary.Task.Deadline), ref)
			wt, gt := *w.Summary.Task, *g.Summary.Task
			wt.Deadline, gt.Deadline = time.Time{}, time.Time{}
			w.Summary.Task, g.Summary.Task = &wt, &gt
		}
		assert.Equal(t, w, g, ref)
	}
}

// skimTree delivers messages of every kind to coder, claims one, handles
// one and archives a task: every box holds something.
func skimTree(t *testing.T, s *Store) {
	t.Helper()
	in := openTestInbox(t, s, "coder")
	task := newMsg("boss", "coder", "do it")
	task.Type, task.Task = envelope.TypeTask, &envelope.Task{ID: "t1", State: envelope.StatePending,
		Deadline: new(envelope.NewTime(time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)))}
	deliver(t, s, task)
	ack(t, in, next(t, in))
	_, err := in.SweepTask(context.Background(), "t1")
	require.NoError(t, err)
	req := newMsg("boss", "coder", "question")
	req.ExpectsReply, req.ThreadID, req.Subject = true, "th", "subject"
	req.ReplyBy = new(envelope.NewTime(time.Date(2031, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))))
	deliver(t, s, req)
	ack(t, in, next(t, in))
	claimed := newMsg("boss", "coder", "being handled")
	deliver(t, s, claimed)
	next(t, in)
	reply := newMsg("coder", "boss", "answer")
	reply.ReplyTo = req.ID
	deliver(t, s, reply)
	deliver(t, s, newMsg("boss", "coder", "waiting"))
}

func TestSkimListsWhatBrowseDoesAndKeepsAnIndex(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	skimTree(t, s)
	want := browsed(t, s)
	boxes := map[driver.Box]int{}
	for _, sk := range want {
		boxes[sk.Box]++
	}
	require.Equal(t, map[driver.Box]int{driver.BoxInbox: 2, driver.BoxClaimed: 1, driver.BoxProcessed: 1, driver.BoxArchive: 1}, boxes)

	sameSkims(t, want, skimmed(t, s))
	for _, agent := range []string{"coder", "boss"} {
		assert.FileExists(t, s.indexPath(agent))
	}
	info, err := os.Stat(s.indexDir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm())

	// From the index: the same again, without reading the files (a file
	// rewritten in place, which the tree never does, keeps its summary).
	sameSkims(t, want, skimmed(t, s))
	var waiting string
	for ref, sk := range want {
		if sk.Box == driver.BoxInbox && sk.Agent == "coder" {
			waiting = ref
		}
	}
	require.NotEmpty(t, waiting)
	other := newMsg("someone", "coder", "rewritten")
	writeRaw(t, filepath.Dir(filepath.Join(s.root, waiting)), filepath.Base(waiting), encoded(t, other))
	assert.Equal(t, want[waiting].Summary.ID, skimmed(t, s, "coder")[waiting].Summary.ID)
}

func TestSkimForgetsWhatIsGoneAndLearnsWhatIsNew(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	skimTree(t, s)
	before := skimmed(t, s, "coder")
	var gone string
	for ref, sk := range before {
		if sk.Box == driver.BoxProcessed {
			gone = ref
		}
	}
	require.NoError(t, os.Remove(filepath.Join(s.root, gone)))
	deliver(t, s, newMsg("boss", "coder", "new"))

	sameSkims(t, browsed(t, s), skimmed(t, s))
	names, _, err := decodeIndex(readFile(t, s.indexPath("coder")))
	require.NoError(t, err)
	assert.NotContains(t, names, filepath.Base(gone))
	assert.Len(t, names, len(before))
}

func TestSkimRebuildsADamagedIndex(t *testing.T) {
	t.Parallel()
	for name, damage := range map[string]func([]byte) []byte{
		"torn":          func(b []byte) []byte { return b[:len(b)/2] },
		"flipped byte":  func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b },
		"empty":         func([]byte) []byte { return nil },
		"other version": func(b []byte) []byte { return append([]byte("switchboard-index-1\n"), b[len(indexMagic):]...) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _ := openMsgStore(t)
			skimTree(t, s)
			want := browsed(t, s)
			sameSkims(t, want, skimmed(t, s))
			path := s.indexPath("coder")
			require.NoError(t, os.WriteFile(path, damage(readFile(t, path)), 0o600))

			sameSkims(t, want, skimmed(t, s))
			_, _, err := decodeIndex(readFile(t, path))
			assert.NoError(t, err, "rewritten whole")
		})
	}
}

func TestSkimWithoutIndex(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "index")
	s, _ := openMsgStore(t, func(o *Options) { o.NoIndex, o.IndexDir = true, dir })
	skimTree(t, s)
	sameSkims(t, browsed(t, s), skimmed(t, s))
	assert.NoDirExists(t, dir)

	// An index folder that cannot be made costs speed, not results.
	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	s2, err := Open(Options{Root: s.root, IndexDir: filepath.Join(blocked, "index")})
	require.NoError(t, err)
	defer s2.Close()
	sameSkims(t, browsed(t, s), skimmed(t, s2))
}

func TestSkimStopsAndRefusesBadAgents(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	skimTree(t, s)
	calls := 0
	require.NoError(t, s.Skim(context.Background(), nil, func(driver.Skimmed) bool { calls++; return false }))
	assert.Equal(t, 1, calls)
	assert.Error(t, s.Skim(context.Background(), []string{"../x"}, func(driver.Skimmed) bool { return true }))
	assert.Empty(t, skimmed(t, s, "nobody"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, s.Skim(ctx, nil, func(driver.Skimmed) bool { return true }), context.Canceled)
}

func TestFetchFollowsAMessageThatMoved(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "coder")
	m := newMsg("boss", "coder", "hello")
	m.Type, m.Task = envelope.TypeTask, &envelope.Task{ID: "t9", State: envelope.StatePending}
	deliver(t, s, m)
	sk := skimmed(t, s, "coder")
	require.Len(t, sk, 1)
	var first driver.Skimmed
	for _, v := range sk {
		first = v
	}
	ctx := context.Background()
	for _, step := range []struct {
		move func()
		box  driver.Box
	}{
		{func() {}, driver.BoxInbox},
		{func() { ack(t, in, next(t, in)) }, driver.BoxProcessed},
		{func() { _, err := in.SweepTask(ctx, "t9"); require.NoError(t, err) }, driver.BoxArchive},
	} {
		step.move()
		st, err := s.Fetch(ctx, first)
		require.NoError(t, err)
		assert.Equal(t, step.box, st.Box)
		assert.Equal(t, m.ID, st.Message.ID)
		assert.Equal(t, "hello", st.Message.Text())
		assert.Equal(t, filepath.Base(first.Ref), filepath.Base(st.Ref))
	}
	st, err := s.Fetch(ctx, first)
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(s.root, st.Ref)))
	_, err = s.Fetch(ctx, first)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	bad := first
	bad.Ref = filepath.Join("boss", "processed", filepath.Base(first.Ref))
	_, err = s.Fetch(ctx, bad)
	assert.ErrorContains(t, err, "not a message of coder")
}

func TestDecodeIndexRefusesGarbage(t *testing.T) {
	t.Parallel()
	sums := []driver.Summary{{ID: "1", From: "a", To: "b", Type: envelope.TypeTask, Timestamp: time.Unix(5, 6).UTC(),
		Task: &driver.TaskSummary{ID: "t", State: envelope.StateCompleted, Deadline: time.Unix(7, 8).UTC()}},
		{ID: "2", From: "b", To: "a", ReplyTo: "1", ThreadID: "th", TaskID: "t", Subject: "re", ExpectsReply: true,
			ReplyBy: time.Unix(-9, 10).UTC()}}
	good := encodeIndex([]string{"a.msg.json", "b.msg.json"}, sums)
	names, got, err := decodeIndex(good)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.msg.json", "b.msg.json"}, names)
	assert.Equal(t, sums, got)
	for i := range len(good) - 1 {
		_, _, err := decodeIndex(good[:i])
		assert.ErrorIs(t, err, errBadIndex, "cut at %d", i)
	}
	for i := len(indexMagic) + 2; i < len(good)-1; i++ { // after the hints (2 records, 0 bytes)
		bad := slices.Clone(good)
		bad[i] ^= 0x10
		_, _, err := decodeIndex(bad)
		assert.ErrorIs(t, err, errBadIndex, "flipped at %d", i)
	}
	assert.True(t, slices.Equal(good, encodeIndex(names, got)), "stable")
}

// encodeIndex returns the index file of the given records.
func encodeIndex(names []string, sums []driver.Summary) []byte {
	b := binary.AppendUvarint([]byte(indexMagic), uint64(len(names)))
	b = binary.AppendUvarint(b, 0)
	for i := range names {
		b = appendIndexRecord(b, names[i], &sums[i])
	}
	return append(b, 0)
}

// decodeIndex reads a whole index file: it fails unless every record is
// sound, the end frame is there and nothing follows it.
func decodeIndex(data []byte) ([]string, []driver.Summary, error) {
	r, err := newIndexReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	var names []string
	var sums []driver.Summary
	for {
		name, sum, err := r.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		names, sums = append(names, name), append(sums, sum)
	}
	if _, err := r.r.ReadByte(); err == nil {
		return nil, nil, fmt.Errorf("%w: bytes after the end", errBadIndex)
	}
	return names, sums, nil
}

// readFile reads path, failing the test on error.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

func TestSkimKeepsTwoCopiesOfOneName(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	skimTree(t, s)
	var handled string
	for ref, sk := range browsed(t, s) {
		if sk.Box == driver.BoxProcessed {
			handled = ref
		}
	}
	// A copy left in the inbox under the same name (a move cut short).
	copyRef := filepath.Join("coder", inboxDir, filepath.Base(handled))
	require.NoError(t, os.Link(filepath.Join(s.root, handled), filepath.Join(s.root, copyRef)))
	want := browsed(t, s)
	require.Contains(t, want, copyRef)

	count := func() int {
		names, _, err := decodeIndex(readFile(t, s.indexPath("coder")))
		require.NoError(t, err)
		n := 0
		for _, name := range names {
			if name == filepath.Base(handled) {
				n++
			}
		}
		return n
	}
	sameSkims(t, want, skimmed(t, s))
	assert.Equal(t, 2, count(), "one record per copy")
	sameSkims(t, want, skimmed(t, s)) // from the index
	assert.Equal(t, 2, count())

	require.NoError(t, os.Remove(filepath.Join(s.root, copyRef)))
	sameSkims(t, browsed(t, s), skimmed(t, s))
	assert.Equal(t, 1, count(), "the record of the copy that is gone is dropped")
}

func TestSkimStoppedEarlyLeavesTheIndex(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	skimTree(t, s)
	require.NoError(t, s.Skim(context.Background(), []string{"coder"}, func(driver.Skimmed) bool { return false }))
	assert.NoFileExists(t, s.indexPath("coder"), "not all of the mailbox was read")
	sameSkims(t, browsed(t, s), skimmed(t, s))
	before := readFile(t, s.indexPath("coder"))
	require.NoError(t, s.Skim(context.Background(), []string{"coder"}, func(driver.Skimmed) bool { return false }))
	assert.Equal(t, before, readFile(t, s.indexPath("coder")))
}

func TestEachDirentReportsKinds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"+envelope.MessageSuffix), nil, 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"+envelope.MessageSuffix), 0o700))
	require.NoError(t, os.Symlink("f"+envelope.MessageSuffix, filepath.Join(dir, "l"+envelope.MessageSuffix)))
	for i := range 600 { // more than one batch
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%04d-%s", i, strings.Repeat("x", 40))), nil, 0o600))
	}
	got := map[string]direntKind{}
	require.NoError(t, eachDirent(dir, func(name []byte, kind direntKind) { got[string(name)] = kind }))
	assert.Len(t, got, 603)
	assert.Equal(t, direntFile, got["f"+envelope.MessageSuffix])
	assert.Equal(t, direntDir, got["d"+envelope.MessageSuffix])
	assert.Equal(t, direntOther, got["l"+envelope.MessageSuffix])
	assert.Error(t, eachDirent(filepath.Join(dir, "missing"), func([]byte, direntKind) {}))
}

func TestSkimSkipsWhatIsNotAMessageFile(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	skimTree(t, s)
	inbox := filepath.Join(s.root, "coder", inboxDir)
	require.NoError(t, os.Mkdir(filepath.Join(inbox, "d"+envelope.MessageSuffix), 0o700))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(inbox, "l"+envelope.MessageSuffix)))
	want := browsed(t, s)
	sameSkims(t, want, skimmed(t, s))
	sameSkims(t, want, skimmed(t, s))
}

func TestListingHintsAreBoundedByTheIndexSize(t *testing.T) {
	t.Parallel()
	var l mailboxListing
	l.reserve(1<<40, 1<<40, 100) // a damaged hint
	assert.LessOrEqual(t, cap(l.files), (100+1024)/8)
	assert.LessOrEqual(t, cap(l.names), 100+1024)
	l.reserve(1000, 30000, 1<<20)
	assert.GreaterOrEqual(t, cap(l.files), 1000)
	assert.GreaterOrEqual(t, cap(l.names), 30000)
}

// A file listed in inbox/ but claimed and acknowledged before it is read
// is read where the receiver moved it, and reported there.
func TestSkimReadsAMessageThatMovedOn(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	m := newMsg("alice", "bob", "on its way")
	require.NoError(t, s.Deliver(context.Background(), m))
	name := envelope.FileName(m)
	require.NoError(t, os.MkdirAll(agentPath(s, "bob", processedDir), 0o700))
	require.NoError(t, os.Rename(agentPath(s, "bob", inboxDir, name), agentPath(s, "bob", processedDir, name)))

	for _, from := range []driver.Box{driver.BoxInbox, driver.BoxClaimed} {
		sk := driver.Skimmed{Agent: "bob", Box: from, Ref: filepath.Join("bob", inboxDir, name)}
		got, err := s.readMovedOn(context.Background(), "bob", name, &sk)
		require.NoError(t, err, "listed in %s", from)
		assert.Equal(t, m.ID, got.ID)
		assert.Equal(t, driver.BoxProcessed, sk.Box)
		assert.Equal(t, filepath.Join("bob", processedDir, name), sk.Ref)
	}

	// Every folder is listed before a file is read: listed in processed/,
	// it may be archived with its task before it is read (the delegator
	// looks for the task it sent while its worker sweeps it).
	archived := filepath.Join(archiveDir, byTaskDir, TaskDir("t1"))
	require.NoError(t, os.MkdirAll(agentPath(s, "bob", archived), 0o700))
	require.NoError(t, os.Rename(agentPath(s, "bob", processedDir, name), agentPath(s, "bob", archived, name)))
	for _, from := range []driver.Box{driver.BoxInbox, driver.BoxClaimed, driver.BoxProcessed} {
		sk := driver.Skimmed{Agent: "bob", Box: from}
		got, err := s.readMovedOn(context.Background(), "bob", name, &sk)
		require.NoError(t, err, "listed in %s", from)
		assert.Equal(t, m.ID, got.ID)
		assert.Equal(t, driver.BoxArchive, sk.Box)
		assert.Equal(t, filepath.Join("bob", archived, name), sk.Ref)
	}
	require.NoError(t, os.Remove(agentPath(s, "bob", archived, name)))
	sk := driver.Skimmed{Agent: "bob", Box: driver.BoxProcessed}
	_, err := s.readMovedOn(context.Background(), "bob", name, &sk)
	assert.ErrorIs(t, err, fs.ErrNotExist, "gone for good")
}
