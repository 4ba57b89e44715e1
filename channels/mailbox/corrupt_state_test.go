package mailbox_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A state record that does not decode (the tasks an agent delegated, the
// replies it awaits) does not keep the agent from starting and receiving:
// it is set aside as <key>-corrupt, the agent starts without it, and a
// warning names the copy.
func TestCorruptStateRecordIsSetAsideAndTheAgentStarts(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"sent-tasks", "awaited-replies"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			state := filepath.Join(e.root, "critic", "state")
			require.NoError(t, os.MkdirAll(state, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(state, key+".json"), []byte("{garbage"), 0o600))
			logs := &testkit.Buffer{}
			cfg := e.config("critic")
			b := bus.New(8)
			c, err := mailbox.New(cfg, b, mailbox.Options{Backend: e.st, Logger: slog.New(slog.NewTextHandler(logs, nil))})
			require.NoError(t, err)
			require.NoError(t, c.Start(context.Background()), "a corrupt record does not stop the agent")
			t.Cleanup(func() { _ = c.Stop(testkit.Ctx(t)); b.Close() })

			copied, err := os.ReadFile(filepath.Join(state, key+"-corrupt.json"))
			require.NoError(t, err)
			assert.Equal(t, "{garbage", string(copied), "the record is kept aside as it was")
			assert.Contains(t, logs.String(), "state record corrupt: set aside, starting without it")
			assert.Contains(t, logs.String(), key+"-corrupt")

			e.deliver(t, msg("boss", "critic", "message", "still here"))
			a := &member{Channel: c, bus: b}
			assert.Equal(t, "still here", a.consume(t).Content, "the agent receives")
		})
	}
}
