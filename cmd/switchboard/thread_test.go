package main_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestThread(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	// nanobot's task (coder/inbox) ← nanobot's accepted update (researcher/processed) ← a reply sent now.
	thanks := s.sendID("--from", "researcher", "--to", "coder", "--reply-to", "msg_1745659260_coder", "--text", "谢谢")
	s.sendID("--from", "researcher", "--to", "coder", "--text", "unrelated")

	for _, id := range []string{"msg_1745659200_researcher", "msg_1745659260_coder", thanks} {
		t.Run(id, func(t *testing.T) {
			lines := decodeLines(t, s.ok("thread", id, "--json"))
			require.Len(t, lines, 3, "the whole chain, whichever message is named")
			assert.Equal(t, "msg_1745659200_researcher", lines[0]["id"])
			assert.Equal(t, "msg_1745659260_coder", lines[1]["id"])
			assert.Equal(t, thanks, lines[2]["id"])
			assert.Equal(t, []any{float64(0), float64(1), float64(2)}, []any{lines[0]["depth"], lines[1]["depth"], lines[2]["depth"]})
			assert.Equal(t, taskPath, lines[0]["file"])
			assert.Equal(t, acceptedPath, lines[1]["file"])
			assert.Equal(t, "收到, 正在处理", lines[1]["text"])
		})
	}

	human := s.ok("thread", thanks)
	rows := strings.Split(strings.TrimSuffix(human, "\n"), "\n")
	require.Len(t, rows, 4)
	assert.Regexp(t, `^AGE +FROM +TO +TYPE +ID +TEXT$`, rows[0])
	assert.Regexp(t, `^\d+d ago +researcher \(unverified\) +coder +task msg_1745659200_researcher pending +msg_1745659200_researcher +帮我写排序函数$`, rows[1])
	assert.Regexp(t, `^\d+d ago +  coder \(unverified\) +researcher +task_update msg_1745659200_researcher accepted +msg_1745659260_coder +收到, 正在处理$`, rows[2])
	assert.Regexp(t, `^(just now|\d+s ago) +    researcher \(unverified\) +coder +message +`+thanks+` +谢谢$`, rows[3])
}

func TestThreadNotFound(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	assertOneLineError(t, s.run("thread", "msg_0_nobody"), 1, "message msg_0_nobody not found under "+s.root)
	assertOneLineError(t, s.run("thread"), 2, "missing argument ID")
}

// A task id names the task's thread: as the argument when no message has
// that id, and with --task.
func TestThreadByTaskID(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	task := s.sendID("--from", "lead", "--to", "coder", "--type", "task", "--task-id", "sort-7", "--text", "sort 2 1")
	done := s.sendID("--from", "coder", "--to", "lead", "--reply-to", task, "--type", "task_update",
		"--task-id", "sort-7", "--task-state", "completed", "--text", "1 2")
	for _, args := range [][]string{{"thread", "sort-7", "--json"}, {"thread", "--task", "sort-7", "--json"}} {
		var ids []string
		for _, l := range decodeLines(t, s.ok(args...)) {
			ids = append(ids, l["id"].(string))
		}
		assert.Equal(t, []string{task, done}, ids, "%v", args)
	}
	assertOneLineError(t, s.run("thread", "--task", task), 1, "task "+task+" not found")
	assert.Contains(t, s.ok("--version"), "switchboard "+testVersion)
}
