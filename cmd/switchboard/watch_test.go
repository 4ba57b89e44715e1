package main_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWatch(t *testing.T) {
	s := newSandbox(t)
	s.writeFixtures()
	watch := s.start("watch", "coder", "--json")
	watch.awaitStderr("watching coder's inbox")
	id := s.sendID("--from", "researcher", "--to", "coder", "--text", "看这里")

	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(watch.next(watch.stdout, "watch output")), &line))
	assert.Equal(t, id, line["id"], "the new message, not the one already waiting")
	assert.Equal(t, "看这里", line["text"])
	assert.Regexp(t, `^coder/inbox/\d{13}_researcher_.*\.msg\.json$`, line["file"])

	watch.signal(os.Interrupt)
	assert.Equal(t, 0, watch.wait(), "stderr:\n%s", watch.stderrSoFar())
	assert.Len(t, s.msgFiles("coder", "inbox"), 2, "watch claims nothing")
}

func TestWatchEveryAgent(t *testing.T) {
	s := newSandbox(t)
	watch := s.start("watch")
	watch.awaitStderr("watching every inbox")
	s.sendID("--from", "researcher", "--to", "brand-new", "--type", "task", "--task-id", "t1", "--text", "hello")

	assert.Regexp(t, `^\d\d:\d\d:\d\d researcher → brand-new \[task t1 pending\] hello$`, watch.next(watch.stdout, "watch output"))
	watch.signal(sigterm)
	assert.Equal(t, 0, watch.wait())
}
