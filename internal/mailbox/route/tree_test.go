package route_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

func TestComposeTaskPath(t *testing.T) {
	t.Parallel()
	root, err := route.Compose("lead", route.Request{To: "coder", Type: envelope.TypeTask, Text: "Sort  it"}, route.ComposeOptions{})
	assert.NoError(t, err)
	fp := route.WorkFingerprint("sort it")
	assert.Equal(t, []string{"lead>coder:" + fp}, root.TaskPath, "case and spacing do not change the work")
	parent := meta.FromMessage(root, false)
	sub, err := route.Compose("coder", route.Request{To: "reviewer", Type: envelope.TypeTask, Text: "check", Parent: &parent},
		route.ComposeOptions{})
	assert.NoError(t, err)
	assert.Equal(t, []string{"lead>coder:" + fp, "coder>reviewer:" + route.WorkFingerprint("check")}, sub.TaskPath)
	msg, err := route.Compose("coder", route.Request{To: "reviewer", Text: "a note", Parent: &parent}, route.ComposeOptions{})
	assert.NoError(t, err)
	assert.Nil(t, msg.TaskPath, "only tasks carry a path")
	routed := &meta.Tree{Task: "t0", Path: []string{"x>coder:1234"}}
	sub, err = route.Compose("coder", route.Request{To: "reviewer", Type: envelope.TypeTask, Text: "check", Tree: routed},
		route.ComposeOptions{})
	assert.NoError(t, err)
	assert.Equal(t, []string{"x>coder:1234", "coder>reviewer:" + route.WorkFingerprint("check")}, sub.TaskPath)
}

func TestCheckTaskPath(t *testing.T) {
	t.Parallel()
	w := route.WorkFingerprint
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
			assert.Equal(t, tt.want, route.CheckTaskPath(tt.self, tt.m, tt.depth))
		})
	}
	assert.True(t, route.IsCycleRefusal("cycle: x"))
	assert.True(t, route.IsCycleRefusal("loop: a already in trace [a]"))
	assert.False(t, route.IsCycleRefusal("over capacity"))
}

// longPath is a task_path of n entries a0>a1, a1>a2, ... with the same work.
func longPath(work string, n int) []string {
	path := make([]string, n)
	for i := range path {
		path[i] = fmt.Sprintf("a%d>a%d:%s", i, i+1, work)
	}
	return path
}

func TestLoopReason(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "loop: coder already in trace [lead coder]", route.LoopReason("coder", []string{"lead", "coder"}))
	trace := make([]string, 0, 41)
	for i := range 40 {
		trace = append(trace, fmt.Sprintf("a%d", i))
	}
	trace = append(trace, "coder")
	assert.Equal(t, "loop: coder already in trace [a0 a1 a2 a3 … 32 more … a36 a37 a38 a39 coder]",
		route.LoopReason("coder", trace), "a long trace is clipped")
	assert.Equal(t, "loop: coder already in trace ["+strings.Repeat("x", 64)+"… coder]",
		route.LoopReason("coder", []string{strings.Repeat("x", 100000), "coder"}), "so is a long name")
}
