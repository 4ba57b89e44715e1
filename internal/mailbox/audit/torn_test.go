package audit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// TestAppendAfterTornLine: a line cut short (a full disk, a writer killed
// mid-write) is closed with a newline before the next entry, so the next
// entry stays whole and readable; the torn line is skipped.
func TestAppendAfterTornLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		reopen  bool // a new Writer (another process) appends after the tear
		partial string
	}{
		{"same writer", false, `{"kind":"sent","agent":"coder","mess`},
		{"new writer", true, `{"kind":"sent","agent":"coder","mess`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			w, err := Open(dir, Options{})
			require.NoError(t, err)
			require.NoError(t, w.Append(store.Event{Kind: store.EventSent, Agent: "coder", MessageID: "m1"}))
			f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = f.WriteString(tt.partial)
			require.NoError(t, err)
			require.NoError(t, f.Close())
			if tt.reopen {
				require.NoError(t, w.Close())
				w, err = Open(dir, Options{})
				require.NoError(t, err)
			}
			require.NoError(t, w.Append(store.Event{Kind: store.EventClaimed, Agent: "coder", MessageID: "m2"}))
			require.NoError(t, w.Append(store.Event{Kind: store.EventProcessed, Agent: "coder", MessageID: "m2"}))
			require.NoError(t, w.Close())

			all, st := readAll(t, dir, Filter{})
			var ids []string
			for _, e := range all {
				ids = append(ids, string(e.Kind)+" "+e.MessageID)
			}
			assert.Equal(t, []string{"sent m1", "claimed m2", "processed m2"}, ids)
			assert.Equal(t, 1, st.Bad, "the torn line is skipped")
			data, err := os.ReadFile(filepath.Join(dir, FileName))
			require.NoError(t, err)
			assert.Contains(t, string(data), tt.partial+"\n{", "the torn line is closed, not continued")
		})
	}
}
