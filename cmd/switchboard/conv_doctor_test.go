package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// convRegistry registers coder (running), sleeper (offline for an hour)
// and gone (offline for months).
func (s *sandbox) convRegistry() {
	s.t.Helper()
	card := func(id string, beat time.Time) string {
		return fmt.Sprintf(`"%s": {"agent_id": "%s", "description": "", "capabilities": [], "status": "idle",
			"allow_from": ["*"], "max_concurrent_tasks": 3, "current_tasks": [],
			"registered_at": "2026-01-01T00:00:00+00:00", "last_heartbeat": "%s"}`, id, id, beat.UTC().Format(time.RFC3339))
	}
	now := time.Now()
	s.writeFile("_registry.json", "{"+card("coder", now)+","+card("sleeper", now.Add(-time.Hour))+","+
		card("gone", now.Add(-200*24*time.Hour))+"}")
}

// message writes a message file from `from` to `to` in to's box.
func (s *sandbox) message(to, box, id, from, extra string) string {
	s.t.Helper()
	return s.writeFile(filepath.Join(to, box, "1745659200000_"+from+"_"+id+".msg.json"), fmt.Sprintf(
		`{"id": "%s", "from": "%s", "to": "%s", "timestamp": "2026-04-26T10:00:00+00:00", "type": "message",
		"content": {"parts": [{"type": "text", "text": "hi"}]}%s}`, id, from, to, extra))
}

func TestDoctorConversations(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.convRegistry()
	goneInbox := s.message("gone", "inbox", "m1", "coder", "")
	goneClaim := s.message("gone", "claimed", "m2", "coder", "")
	ghost := s.message("ghost", "inbox", "m3", "coder", "") // never registered, message months old
	old := time.Now().Add(-30 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(ghost, old, old))
	s.message("newbie", "inbox", "m4", "coder", "") // never registered, message fresh: not an orphan
	s.message("sleeper", "claimed", "m5", "coder", "")
	held := s.message("coder", "inbox", "m6", "sleeper", `, "expects_reply": true, "reply_by": "2026-04-26T11:00:00+00:00", "subject": "api-design"`)
	// coder's receiver claimed m6 (its claim log says so) and has not answered.
	s.writeFile(filepath.Join("coder", "state", ".claims"), filepath.Base(held)+" 1745661600000\n")

	conf := filepath.Join(s.home, "conf.json")
	require.NoError(t, os.WriteFile(conf, []byte(`{"channels": {"mailbox": {"taskTimeout": 0.001}}}`), 0o600))
	all, code := s.findings("--config", conf)
	assert.Equal(t, 0, code, "warnings only")

	orphans := findingsOf(all, "orphan_inbox")
	require.Len(t, orphans, 2, "%v", orphans)
	assert.Equal(t, []any{"ghost", "gone"}, []any{orphans[0]["agent"], orphans[1]["agent"]})
	assert.Contains(t, orphans[1]["detail"], "2 message(s) for an agent gone since 200d ago (longer than channels.mailbox.orphanAfter, 7d); --fix moves them to gone/archive/orphan")
	assert.Equal(t, true, orphans[1]["fixable"])

	stuck := findingsOf(all, "stuck_claim")
	require.Len(t, stuck, 2, "%v", stuck)
	assert.Equal(t, "coder", stuck[0]["agent"])
	assert.Contains(t, stuck[0]["detail"], "1 message(s) held for longer than channels.mailbox.taskTimeout")
	assert.Equal(t, "sleeper", stuck[1]["agent"])
	assert.Contains(t, stuck[1]["detail"], "claimed by an agent that is not running; they are handed out again when it starts")

	overdue := findingsOf(all, "overdue_reply")
	require.Len(t, overdue, 1, "%v", overdue)
	assert.Equal(t, "coder", overdue[0]["agent"])
	assert.Contains(t, overdue[0]["detail"], "message m6 asked coder about api-design, due")

	all, _ = s.findings("--fix")
	for _, f := range findingsOf(all, "orphan_inbox") {
		assert.Equal(t, true, f["fixed"], f)
	}
	for _, p := range []string{goneInbox, goneClaim, ghost} {
		assert.NoFileExists(t, p)
		agent := filepath.Base(filepath.Dir(filepath.Dir(p)))
		assert.FileExists(t, filepath.Join(s.root, agent, "archive", "orphan", filepath.Base(p)))
	}
	orphaned := decodeLines(t, s.ok("log", "--kind", "orphaned", "--json"))
	require.Len(t, orphaned, 3)
	assert.Equal(t, "m3", orphaned[0]["message_id"])
	assert.Equal(t, "coder", orphaned[0]["from"])

	all, _ = s.findings()
	assert.Equal(t, "ok", findingsOf(all, "orphan_inbox")[0]["severity"], "repaired")
	lines := decodeLines(t, s.ok("thread", "m1", "--json"))
	require.Len(t, lines, 1, "archived orphans stay readable")
	assert.Equal(t, filepath.Join("gone", "archive", "orphan", filepath.Base(goneInbox)), lines[0]["file"])
}
