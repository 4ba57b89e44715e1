package main_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pendingIDs(lines []map[string]any) []any {
	var out []any
	for _, l := range lines {
		out = append(out, l["message_id"])
	}
	return out
}

func TestPendingRepliesFromTheShell(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assert.Equal(t, "no replies pending\n", s.ok("pending"))
	q := s.sendID("--from", "researcher", "--to", "coder", "--text", "which api?", "--expects-reply",
		"--subject", "api-design", "--for-task", "t1")
	s.sendID("--from", "researcher", "--to", "coder", "--text", "fyi")
	late := s.sendID("--from", "planner", "--to", "researcher", "--text", "status?", "--expects-reply",
		"--reply-by", "2020-01-01T00:00:00Z")

	all := decodeLines(t, s.ok("pending", "--json"))
	assert.Equal(t, []any{q, late}, pendingIDs(all), "requests only, oldest first")
	assert.Equal(t, "inbox", all[0]["box"], "not read yet")
	assert.Equal(t, "api-design", all[0]["subject"])
	assert.Equal(t, "t1", all[0]["task_id"])
	assert.Equal(t, false, all[0]["overdue"])
	assert.Equal(t, true, all[1]["overdue"])
	for _, l := range all {
		assertSnakeCase(t, l, "pending --json")
	}
	assert.Equal(t, []any{q}, pendingIDs(decodeLines(t, s.ok("pending", "coder", "--json"))))
	assert.Equal(t, []any{q}, pendingIDs(decodeLines(t, s.ok("pending", "--task", "t1", "--json"))))
	assert.Equal(t, []any{late}, pendingIDs(decodeLines(t, s.ok("pending", "--overdue", "--json"))))

	s.ok("recv", "coder", "--count", "2")
	held := decodeLines(t, s.ok("pending", "coder", "--json"))
	require.Len(t, held, 1)
	assert.Equal(t, "claimed", held[0]["box"], "received and held until answered")

	human := strings.Split(strings.TrimSuffix(s.ok("pending"), "\n"), "\n")
	require.Len(t, human, 3)
	assert.Regexp(t, `^AGE +FROM +TO +TYPE +ID +SUBJECT +TASK +DUE +WHERE$`, human[0])
	assert.Regexp(t, `researcher +coder +message +`+q+` +api-design +t1 +in \d+m +claimed$`, human[1])
	assert.Regexp(t, `planner +researcher +message +`+late+` +- +- +overdue \d+d ago +inbox$`, human[2])

	s.sendID("--from", "coder", "--to", "researcher", "--reply-to", q, "--text", "rest")
	assert.Equal(t, []any{late}, pendingIDs(decodeLines(t, s.ok("pending", "--json"))), "answered")
}

func TestPendingUsage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assertOneLineError(t, s.run("pending", "../x"), 2, "invalid agent id")
	assertOneLineError(t, s.run("pending", "a", "b"), 2, `unexpected argument "b"`)
}
