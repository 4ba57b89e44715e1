package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// plainStore is a real in-memory store with only the abilities every
// backend has: it cannot list its messages nor read an audit log back.
type plainStore struct{ driver.Backend }

// plainHub holds the messages and cards of backend "plain".
var plainHub = memstore.NewHub()

func init() {
	store.Register("plain", func(store.Config) (driver.Backend, error) {
		return plainStore{plainHub.Open(memstore.Options{})}, nil
	})
}

// A store without the optional abilities: send and agents work; each
// command that needs an ability it lacks fails with one line naming the
// command and the ability; doctor says it is for the filesystem store
// only.
func TestCommandsOnPlainStore(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(conf, []byte(`{"channels": {"mailbox": {"backend": "plain"}}}`), 0o600))
	run := func(args ...string) (int, string, string) {
		return runMain(t, append([]string{"--config", conf}, args...)...)
	}

	code, out, errOut := run("agents")
	assert.Equal(t, ExitOK, code, errOut)
	assert.Equal(t, "no agents in the plain store\n", out)

	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	_, err := plainStore{plainHub.Open(memstore.Options{})}.UpdateCard(ctx, "coder", func(c *envelope.Card) {
		c.Status, c.LastHeartbeat = envelope.StatusIdle, envelope.NewTime(time.Now())
	})
	require.NoError(t, err)
	code, out, errOut = run("send", "--from", "lead", "--to", "coder", "--text", "hi")
	assert.Equal(t, ExitOK, code, errOut)
	id := strings.TrimSpace(out)
	code, out, _ = run("agents")
	assert.Equal(t, ExitOK, code)
	assert.Regexp(t, `(?m)^coder \(unverified\) +idle +- +0/0 `, out, "the depth is unknown")

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"thread", id}, "thread: the plain store cannot list stored messages"},
		{[]string{"pending"}, "pending: the plain store cannot list stored messages"},
		{[]string{"inbox", "coder"}, "inbox: the plain store cannot list stored messages"},
		{[]string{"send", "--from", "coder", "--to", "lead", "--reply-to", id, "--text", "ok"},
			"send --reply-to: the plain store cannot list stored messages"},
		{[]string{"log"}, "log: the plain store keeps no audit log that can be read back"},
		{[]string{"watch"}, "watch: the plain store cannot follow new messages"},
		{[]string{"doctor"}, `doctor works on the filesystem store only, and channels.mailbox.backend is "plain"`},
	} {
		code, out, errOut := run(tt.args...)
		assert.Equal(t, ExitFailure, code, "%v", tt.args)
		assert.Empty(t, out, "%v", tt.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %q", tt.args, errOut)
		assert.Contains(t, errOut, "switchboard: "+tt.want, "%v", tt.args)
	}
}
