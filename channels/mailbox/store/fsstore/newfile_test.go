package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// createNew writes a whole new file, refuses a name that exists, and
// leaves nothing else in the folder; so does the portable way.
func TestCreateNew(t *testing.T) {
	t.Parallel()
	ways := map[string]func(dir, name string, data []byte) error{
		"createNew": createNew, "createNewRenamed": createNewRenamed,
	}
	for way, f := range newFileFallbacks {
		ways[way] = f
	}
	for name, create := range ways {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, create(dir, "a.json", []byte(`{"a":1}`)))
			data, err := os.ReadFile(filepath.Join(dir, "a.json"))
			require.NoError(t, err)
			assert.Equal(t, `{"a":1}`, string(data))
			fi, err := os.Stat(filepath.Join(dir, "a.json"))
			require.NoError(t, err)
			assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())

			err = create(dir, "a.json", []byte(`{"a":2}`))
			assert.ErrorIs(t, err, fs.ErrExist)
			data, err = os.ReadFile(filepath.Join(dir, "a.json"))
			require.NoError(t, err)
			assert.Equal(t, `{"a":1}`, string(data), "the file there is kept")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temp file left")

			err = create(filepath.Join(dir, "missing"), "b.json", nil)
			assert.True(t, errors.Is(err, fs.ErrNotExist), "a missing folder: %v", err)
		})
	}
}

// BenchmarkCreateNew queues and merges small files in one folder from
// many goroutines at once, as a thousand agents stopping together do:
// each file is created and then removed, each change holding the
// folder's lock.
func BenchmarkCreateNew(b *testing.B) {
	data := make([]byte, 336) // a card
	for _, way := range []struct {
		name   string
		create func(dir, name string, data []byte) error
	}{{"tmpfile", createNew}, {"renamed", createNewRenamed}} {
		b.Run(way.name, func(b *testing.B) {
			dir := b.TempDir()
			var n atomic.Int64
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					name := fmt.Sprintf("a%06d@1.json", n.Add(1))
					if err := way.create(dir, name, data); err != nil {
						b.Error(err)
						return
					}
					if err := os.Remove(filepath.Join(dir, name)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
