package meta_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

func TestCheckTaskPath(t *testing.T) {
	t.Parallel()
	w := meta.WorkFingerprint
	task := func(text string, path ...string) *envelope.Message {
		return &envelope.Message{Type: envelope.TypeTask, Task: &envelope.Task{ID: "t"},
			Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(text)}}, TaskPath: path}
	}
	for _, tt := range []struct {
		name, self string
		m          *envelope.Message
		depth      int
		want       string
	}{
		{"root", "coder", task("x", "lead>coder:"+w("x")), 8, ""},
		{"no path (nanobot)", "coder", task("x"), 8, ""},
		{"back to the delegator", "a", task("x", "a>b:"+w("x"), "b>c:"+w("y"), "c>a:"+w("x")), 8,
			"cycle: the same work came back to a in one task tree: a → b → c → a"},
		{"back to a worker", "b", task("x", "a>b:"+w("x"), "b>c:"+w("x"), "c>b:"+w("x")), 8,
			"cycle: the same work came back to b in one task tree: a → b → c → b"},
		{"other work is fine", "a", task("z", "a>b:"+w("x"), "b>c:"+w("y"), "c>a:"+w("z")), 8, ""},
		{"too deep", "e", task("5", "a>b:"+w("1"), "b>c:"+w("2"), "c>d:"+w("3"), "d>e:"+w("5")), 3,
			"cycle: task tree 4 deep, over the limit of 3 (channels.mailbox.limits.maxTaskDepth): a → b → c → d → e"},
		{"malformed entries skipped", "a", task("x", "junk", ":", "c>a:"+w("x")), 8, ""},
		{"not a task", "a", &envelope.Message{Type: envelope.TypeMessage, TaskPath: []string{"a>b:1", "b>a:1"}}, 1, ""},
		{"a long tree is clipped", "z", task("9", longPath(w("0"), 40)...), 8,
			"cycle: task tree 40 deep, over the limit of 8 (channels.mailbox.limits.maxTaskDepth): a0 → a1 → a2 → a3 → … 33 more … → a37 → a38 → a39 → a40 → z"},
		{"a long name is clipped", "b", task("y", strings.Repeat("é", 40)+">b:"+w("y"), "b>b:"+w("x")), 1,
			"cycle: task tree 2 deep, over the limit of 1 (channels.mailbox.limits.maxTaskDepth): " + strings.Repeat("é", 32) + "… → b → b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, meta.CheckTaskPath(tt.self, tt.m, tt.depth))
		})
	}
	assert.True(t, meta.IsCycleRefusal("cycle: x"))
	assert.True(t, meta.IsCycleRefusal("loop: a already in trace [a]"))
	assert.False(t, meta.IsCycleRefusal("over capacity"))
}

// longPath is a task_path of n entries a0>a1, a1>a2, ... with the same work.
func longPath(work string, n int) []string {
	path := make([]string, n)
	for i := range path {
		path[i] = fmt.Sprintf("a%d>a%d:%s", i, i+1, work)
	}
	return path
}

// Work sent while a message is handled joins the tree the request names,
// else the message's: the tree routed with it, or the task it is.
func TestTreeOf(t *testing.T) {
	t.Parallel()
	routed := &meta.Tree{Task: "t0", Path: []string{"x>coder:1234"}}
	task := &meta.Meta{Type: envelope.TypeTask, Task: &envelope.Task{ID: "t1"}, TaskPath: []string{"lead>coder:5678"}}
	assert.Same(t, routed, meta.TreeOf(routed, task), "the request's own tree first")
	assert.Equal(t, &meta.Tree{Task: "t1", Path: task.TaskPath}, meta.TreeOf(nil, task))
	update := &meta.Meta{Type: envelope.TypeTaskUpdate, Task: &envelope.Task{ID: "sub"}, Tree: routed}
	got := meta.TreeOf(nil, update)
	assert.Equal(t, routed, got)
	assert.NotSame(t, routed, got, "a copy of the routed tree")
	assert.Nil(t, meta.TreeOf(nil, &meta.Meta{Type: envelope.TypeMessage}), "a message starts no tree")
	assert.Nil(t, meta.TreeOf(nil, nil))

	assert.Nil(t, meta.TreeAt("", nil), "a task that began a tree of its own")
	assert.Equal(t, &meta.Tree{Task: "t1"}, meta.TreeAt("t1", nil))
	w := meta.WorkFingerprint("check")
	assert.Equal(t, []string{"coder>reviewer:" + w}, (*meta.Tree)(nil).TaskPath("coder", "reviewer", "check"))
	assert.Equal(t, []string{"x>coder:1234", "coder>reviewer:" + w}, routed.TaskPath("coder", "reviewer", "check"))
	assert.Equal(t, []string{"x>coder:1234"}, routed.Path, "the tree's own path is left alone")

	data, err := json.Marshal(meta.With(nil, meta.Meta{MessageID: "m", Tree: &meta.Tree{Task: "t0", Path: []string{"p0"}},
		TaskPath: []string{"p0", "p1"}}))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"task_path":["p0","p1"],"tree":{"task":"t0","path":["p0"]}`, "the keys of the metadata")
}

func TestChainText(t *testing.T) {
	t.Parallel()
	agents := []string{"a", "b", "c"}
	assert.Equal(t, "a → b → c", meta.ChainText(agents, " → "))
	long := make([]string, 0, 20)
	for i := range 20 {
		long = append(long, fmt.Sprintf("a%d", i))
	}
	keep := slices.Clone(long)
	assert.Equal(t, "a0 a1 a2 a3 … 11 more … a15 a16 a17 a18 a19", meta.ChainText(long, " "))
	assert.Equal(t, keep, long, "the chain is not changed")
}
