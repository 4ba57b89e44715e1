package main_test

import (
	"os"
	"path/filepath"
	"strings"
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
	t.Parallel()
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
	registryOrphan := s.writeFile("_registry.tmp", "{")                          // nanobot's registry writer crashed
	require.NoError(t, os.Chtimes(registryOrphan, old, old))
	link := filepath.Join(s.root, "researcher", "processed", "1745659700_x.msg.json")
	require.NoError(t, os.Symlink("/etc/passwd", link))

	all, code := s.findings()
	assert.Equal(t, 0, code, "warnings only")
	staging := findingsOf(all, "staging")
	require.Len(t, staging, 3, "the three old staging files, not the fresh one: %v", staging)
	assert.Equal(t, map[string]any{"check": "staging", "severity": "warn", "agent": "", "path": registryOrphan,
		"detail": "orphan staging file, 2m old, left by a crashed writer", "fixable": true, "fixed": false}, staging[0])
	assert.Equal(t, map[string]any{"check": "staging", "severity": "warn", "agent": "coder", "path": orphan,
		"detail": "orphan staging file, 2m old, left by a crashed writer", "fixable": true, "fixed": false}, staging[1])
	assert.Equal(t, nanobotOrphan, staging[2]["path"])

	// nanobot made its folders 0755 and its files 0644.
	perms := findingsOf(all, "permissions")
	require.Len(t, perms, 3, "the root's files, coder's and researcher's folders: %v", perms)
	assert.Equal(t, []any{"", "coder", "researcher"}, []any{perms[0]["agent"], perms[1]["agent"], perms[2]["agent"]})
	assert.Equal(t, "2 folder(s) and 1 file(s) open to group or others, e.g. coder (mode 0755); --fix makes them private (chmod go-rwx)", perms[1]["detail"])
	assert.Equal(t, true, perms[1]["fixable"])

	foreign := findingsOf(all, "foreign")
	require.Len(t, foreign, 1)
	assert.Equal(t, link, foreign[0]["path"])
	assert.Equal(t, false, foreign[0]["fixable"])

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

	human := s.ok("doctor")
	assert.Regexp(t, `(?m)^SEVERITY +CHECK +AGENT +PATH +DETAIL$`, human)
	assert.Regexp(t, `(?m)^warn +rejected +coder +coder/rejected +1 file\(s\) quarantined`, human)
	// With orphan_inbox (researcher, gone for months) and overdue_reply
	// (nanobot's task): see conv_doctor_test.go.
	assert.True(t, strings.HasSuffix(human, "\n12 problem(s); switchboard doctor --fix repairs 7 of them, see DETAIL for the rest\n"), human)

	human = s.ok("doctor", "--fix")
	assert.Regexp(t, `(?m)^warn +staging +coder +coder/inbox/1745659500_writer\.msg\.tmp +orphan staging file, 2m old, left by a crashed writer \(fixed\)$`, human)
	assert.True(t, strings.HasSuffix(human, "\n12 problem(s): 7 fixed, 5 left to repair by hand (see DETAIL)\n"), human)
	assert.NoFileExists(t, orphan)
	assert.NoFileExists(t, nanobotOrphan)
	assert.NoFileExists(t, registryOrphan)
	assert.FileExists(t, fresh)
	assert.FileExists(t, filepath.Join(s.root, "coder/rejected/1745659000_evil.msg.json"), "quarantine is not fixed")
	assert.FileExists(t, filepath.Join(s.root, taskPath), "messages stay")
	for _, rel := range []string{"coder", "coder/inbox", "researcher/processed"} {
		assert.Equal(t, os.FileMode(0o700), modeOf(t, filepath.Join(s.root, rel)), rel)
	}
	for _, rel := range []string{"_registry.json", taskPath, acceptedPath} {
		assert.Equal(t, os.FileMode(0o600), modeOf(t, filepath.Join(s.root, rel)), rel)
	}

	all, code = s.findings()
	assert.Equal(t, 0, code)
	for _, check := range []string{"staging", "permissions"} {
		assert.Equal(t, []map[string]any{{"check": check, "severity": "ok", "agent": "", "path": s.root,
			"detail":  map[string]string{"staging": "no orphan staging files", "permissions": "every file and folder is yours and private"}[check],
			"fixable": false, "fixed": false}}, findingsOf(all, check), "repaired")
	}
	assert.Len(t, findingsOf(all, "foreign"), 1, "reported, not removed")
	assert.FileExists(t, "/etc/passwd")
}

// modeOf returns the permission bits of path.
func modeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	return fi.Mode().Perm()
}

func TestDoctorErrors(t *testing.T) {
	t.Parallel()
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
		all, code := s.findings()
		assert.Equal(t, 1, code)
		require.NotEmpty(t, all)
		assert.Equal(t, "root", all[0]["check"])
		assert.Equal(t, "error", all[0]["severity"])
		assert.Contains(t, all[0]["detail"], "chmod 700")
		assert.Equal(t, true, all[0]["fixable"])
		assert.Equal(t, os.FileMode(0o777), modeOf(t, s.root), "no --fix, no change")

		all, code = s.findings("--fix")
		assert.Equal(t, 0, code, "the error was repaired")
		assert.Equal(t, true, all[0]["fixed"])
		assert.Equal(t, os.FileMode(0o700), modeOf(t, s.root))
		s.ok("agents") // the store accepts the root now
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
