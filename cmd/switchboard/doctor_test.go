package main_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findings runs doctor --json and returns the findings and exit status.
func (s *sandbox) findings(args ...string) ([]map[string]any, int) {
	s.t.Helper()
	r := s.run(append([]string{"doctor", "--json"}, args...)...)
	return decodeLines(s.t, r.stdout), r.code
}

// findingsOf returns the findings of one check.
func findingsOf(all []map[string]any, check string) []map[string]any {
	var out []map[string]any
	for _, f := range all {
		if f["check"] == check {
			out = append(out, f)
		}
	}
	return out
}

func TestDoctor(t *testing.T) {
	s := newSandbox(t)
	s.writeFixtures()
	old := time.Now().Add(-2 * time.Minute)
	orphan := s.writeFile("coder/tmp/1745659400_writer_abc.msg.json.1f2e3d.tmp", "{")
	require.NoError(t, os.Chtimes(orphan, old, old))
	nanobotOrphan := s.writeFile("coder/inbox/1745659500_writer.msg.tmp", "{")
	require.NoError(t, os.Chtimes(nanobotOrphan, old, old))
	fresh := s.writeFile("coder/tmp/1745659401_writer_def.msg.json.4a5b6c.tmp", "{") // being written
	s.writeFile("coder/rejected/1745659000_evil.msg.json", "{}")
	s.writeFile("coder/rejected/1745659000_evil.msg.json.reason.json",
		`{"reason": "unauthorized: sender evil not in allowFrom", "agent": "coder"}`)
	s.writeFile("coder/inbox/notes.txt", "not a message")
	s.writeFile("researcher/inbox/1745659600_coder.msg.json", acceptedByNanobot) // addressed to researcher: fine

	all, code := s.findings()
	assert.Equal(t, 0, code, "warnings only")
	staging := findingsOf(all, "staging")
	require.Len(t, staging, 2, "the two old staging files, not the fresh one: %v", staging)
	assert.Equal(t, map[string]any{"check": "staging", "severity": "warn", "agent": "coder", "path": orphan,
		"detail": "orphan staging file, 2m old, left by a crashed writer", "fixed": false}, staging[0])
	assert.Equal(t, nanobotOrphan, staging[1]["path"])

	rejected := findingsOf(all, "rejected")
	require.Len(t, rejected, 1)
	assert.Equal(t, "coder", rejected[0]["agent"])
	assert.Equal(t, "1 file(s) quarantined: unauthorized: sender evil not in allowFrom", rejected[0]["detail"])

	inbox := findingsOf(all, "inbox")
	require.Len(t, inbox, 1)
	assert.Equal(t, filepath.Join(s.root, "coder", "inbox", "notes.txt"), inbox[0]["path"])
	assert.Contains(t, inbox[0]["detail"], "foreign file")

	offline := findingsOf(all, "offline_agent")
	require.Len(t, offline, 1, "researcher: offline with a message waiting")
	assert.Equal(t, "researcher", offline[0]["agent"])
	assert.Contains(t, offline[0]["detail"], "with 1 message(s) waiting")

	for _, check := range []string{"root", "registry"} {
		got := findingsOf(all, check)
		require.Len(t, got, 1)
		assert.Equal(t, "ok", got[0]["severity"], check)
	}

	all, code = s.findings("--fix")
	assert.Equal(t, 0, code)
	for _, f := range findingsOf(all, "staging") {
		assert.Equal(t, true, f["fixed"])
	}
	assert.NoFileExists(t, orphan)
	assert.NoFileExists(t, nanobotOrphan)
	assert.FileExists(t, fresh)
	assert.FileExists(t, filepath.Join(s.root, "coder/rejected/1745659000_evil.msg.json"), "quarantine is not fixed")

	all, _ = s.findings()
	assert.Equal(t, []map[string]any{{"check": "staging", "severity": "ok", "agent": "", "path": s.root,
		"detail": "no orphan staging files", "fixed": false}}, findingsOf(all, "staging"))

	human := s.ok("doctor")
	assert.Regexp(t, `(?m)^SEVERITY +CHECK +AGENT +PATH +DETAIL$`, human)
	assert.Regexp(t, `(?m)^warn +rejected +coder +coder/rejected +1 file\(s\) quarantined`, human)
}

func TestDoctorErrors(t *testing.T) {
	t.Run("corrupt registry", func(t *testing.T) {
		s := newSandbox(t)
		s.writeFixtures()
		s.writeFile("_registry.json", `{"coder": {"agent_id": "coder"}}{"researcher": {"agent_id"`) // torn by two writers
		all, code := s.findings()
		assert.Equal(t, 1, code)
		got := findingsOf(all, "registry")
		require.Len(t, got, 1)
		assert.Equal(t, "error", got[0]["severity"])
		assert.Contains(t, got[0]["detail"], "corrupt")

		r := s.run("doctor")
		assert.Equal(t, 1, r.code)
		assert.Equal(t, "switchboard: doctor: 1 error(s) in "+s.root+"\n", r.stderr)
	})
	t.Run("root writable by others", func(t *testing.T) {
		s := newSandbox(t)
		require.NoError(t, os.Chmod(s.root, 0o777))
		all, code := s.findings("--fix")
		assert.Equal(t, 1, code)
		require.NotEmpty(t, all)
		assert.Equal(t, "root", all[0]["check"])
		assert.Equal(t, "error", all[0]["severity"])
		assert.Contains(t, all[0]["detail"], "chmod 700")
	})
	t.Run("root missing", func(t *testing.T) {
		s := newSandbox(t)
		require.NoError(t, os.Remove(s.root))
		all, code := s.findings()
		assert.Equal(t, 0, code)
		require.Len(t, all, 1)
		assert.Equal(t, "warn", all[0]["severity"])
		assert.NoDirExists(t, s.root, "doctor creates nothing")
	})
}
