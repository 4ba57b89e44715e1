package main_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadingCommandsWriteNothing runs every command that only looks at
// the tree and checks that the tree is exactly as it was: no file, folder,
// lock or mode changed.
func TestReadingCommandsWriteNothing(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	s.writeFile("coder/inbox/1745659300_writer.msg.json", `{"id": "msg_1745659300_writer", "from": "wri`) // torn
	id := s.sendID("--from", "researcher", "--to", "coder", "--reply-to", "msg_1745659260_coder", "--text", "thanks")
	before := snapshot(t, s.root)

	for _, args := range [][]string{
		{"inbox", "coder"}, {"inbox", "coder", "--json"}, {"inbox", "nobody"},
		{"agents"}, {"agents", "--json"},
		{"thread", id}, {"thread", "msg_1745659200_researcher", "--json"},
		{"doctor"}, {"doctor", "--json"},
		{"pending"}, {"pending", "coder", "--json"}, {"log"}, {"log", "--json"},
		{"__complete", "inbox", ""}, {"__complete", "send", "--to", ""},
	} {
		s.run(args...) // doctor may exit 1 for what it finds; the tree is the point
		requireUnchanged(t, before, s.root, "switchboard "+args[0])
	}

	watch := s.start("watch", "--json")
	watch.awaitStderr("watching every inbox")
	watch.signal(os.Interrupt)
	require.Equal(t, 0, watch.wait())
	requireUnchanged(t, before, s.root, "switchboard watch")
}

// TestReadingCommandsCreateNoRoot: inbox, agents, thread, pending, log and
// doctor on a root that does not exist say there is nothing, and do not
// create it.
func TestReadingCommandsCreateNoRoot(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	require.NoError(t, os.Remove(s.root))

	assert.Equal(t, "no messages pending for coder\n", s.ok("inbox", "coder"))
	assert.Empty(t, s.ok("inbox", "coder", "--json"))
	assert.Equal(t, "no agents in "+s.root+"\n", s.ok("agents"))
	assert.Empty(t, s.ok("agents", "--json"))
	assertOneLineError(t, s.run("thread", "x"), 1, "message x not found under "+s.root)
	assert.Equal(t, "no replies pending\n", s.ok("pending"))
	assert.Empty(t, s.ok("pending", "coder", "--json"))
	assert.Equal(t, "no audit entries in "+s.root+"\n", s.ok("log"))
	s.ok("doctor")
	assert.NoDirExists(t, s.root)
}
