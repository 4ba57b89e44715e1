package fsstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = envelope.NewID()
	}
	return out
}

func TestJournalRemembersAcrossReopen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), journalName)
	j, err := openJournal(path, 100, true)
	require.NoError(t, err)
	some := ids(3)
	for _, id := range some {
		require.NoError(t, addID(j, id))
	}
	written, err := j.add(some[0])
	require.NoError(t, err)
	assert.False(t, written, "adding twice is harmless and writes nothing")
	written, err = j.add("msg_1745659200_coder")
	require.NoError(t, err)
	assert.False(t, written, "nanobot ids are ignored")
	require.NoError(t, j.close())

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, strings.Join(some, "\n")+"\n", string(data))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	j, err = openJournal(path, 100, true)
	require.NoError(t, err)
	defer j.close()
	for _, id := range some {
		assert.True(t, j.has(id))
	}
	assert.False(t, j.has("msg_1745659200_coder"))
	assert.False(t, j.has(envelope.NewID()))
}

func TestJournalKeepsTheLastIDs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), journalName)
	j, err := openJournal(path, 10, false)
	require.NoError(t, err)
	all := ids(25)
	for _, id := range all {
		require.NoError(t, addID(j, id))
		if j.needsCompaction() {
			require.NoError(t, j.compact())
		}
	}
	for i, id := range all {
		assert.Equal(t, i >= 15, j.has(id), "id %d", i)
	}
	require.NoError(t, j.close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	assert.LessOrEqual(t, len(lines), 20, "compacted at twice the ids kept")
	assert.Equal(t, all[len(all)-1], lines[len(lines)-1])

	j, err = openJournal(path, 10, false)
	require.NoError(t, err)
	defer j.close()
	for i, id := range all {
		assert.Equal(t, i >= 15, j.has(id), "after reopen, id %d", i)
	}
}

func TestJournalReadsOnlyTheTail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), journalName)
	all := ids(5000)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(all, "\n")+"\n"), 0o600))
	j, err := openJournal(path, 10, false) // reads about 1 KiB
	require.NoError(t, err)
	defer j.close()
	assert.True(t, j.has(all[len(all)-1]))
	assert.False(t, j.has(all[0]))
	assert.Less(t, j.lines, 100)
}

func TestJournalRepairsATornLastLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), journalName)
	good, torn, later := envelope.NewID(), envelope.NewID(), envelope.NewID()
	require.NoError(t, os.WriteFile(path, []byte(good+"\n"+torn[:10]), 0o600))
	j, err := openJournal(path, 100, false)
	require.NoError(t, err)
	assert.True(t, j.has(good))
	require.NoError(t, addID(j, later))
	require.NoError(t, j.close())

	j, err = openJournal(path, 100, false)
	require.NoError(t, err)
	defer j.close()
	assert.True(t, j.has(later), "the next id is not glued to the torn line")
}

func TestJournalErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "adir"), 0o700))
	_, err := openJournal(filepath.Join(dir, "adir"), 10, false)
	require.ErrorContains(t, err, "not a regular file")

	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, nil, 0o600))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, "link")))
	_, err = openJournal(filepath.Join(dir, "link"), 10, false)
	require.Error(t, err, "a symlinked journal is not followed")

	j, err := openJournal(filepath.Join(dir, journalName), 10, false)
	require.NoError(t, err)
	require.NoError(t, j.close())
	_, err = j.add(envelope.NewID())
	require.Error(t, err, "append to a closed file fails")
}

// addID adds id to j and syncs it, as an acknowledgement's commit does.
func addID(j *journal, id string) error {
	if _, err := j.add(id); err != nil {
		return err
	}
	return j.syncNow()
}
