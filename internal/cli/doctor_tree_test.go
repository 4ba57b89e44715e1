package cli

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// mode returns the permission bits of path.
func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	return fi.Mode().Perm()
}

func TestDoctorPermissions(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	msg := tr.write("b/inbox/1_a.msg.json", message)
	tr.write("c/processed/1_a.msg.json", message) // private: fine
	require.NoError(t, os.Chmod(msg, 0o644))
	inbox := filepath.Join(tr.root, "b", "inbox")
	require.NoError(t, os.Chmod(inbox, 0o757)) // writable by others
	reg := tr.write(registryFile, "{}")
	require.NoError(t, os.Chmod(reg, 0o640))

	got := problems(tr.doctor(), "permissions")
	require.Len(t, got, 2, "one finding per agent folder, and one for the root's files: %v", got)
	assert.Equal(t, finding{Check: "permissions", Severity: severityWarn, Path: tr.root, Fixable: true,
		Detail: "0 folder(s) and 1 file(s) open to group or others, e.g. _registry.json (mode 0640); --fix makes them private (chmod go-rwx)"}, got[0])
	assert.Equal(t, finding{Check: "permissions", Severity: severityError, Agent: "b", Path: filepath.Join(tr.root, "b"), Fixable: true,
		Detail: "1 folder(s) and 1 file(s) open to group or others (1 writable: others can plant or alter messages), e.g. b/inbox (mode 0757); --fix makes them private (chmod go-rwx)"}, got[1])
	assert.Equal(t, os.FileMode(0o757), mode(t, inbox), "no --fix: nothing changed")

	d := doctorRun{root: tr.root, fix: true, now: time.Now(), offlineAfter: time.Minute, maxBytes: 1 << 20}
	for _, f := range problems(d.run(), "permissions") {
		assert.True(t, f.Fixed, "%v", f)
	}
	assert.Equal(t, os.FileMode(0o700), mode(t, inbox), "group and others removed, owner kept")
	assert.Equal(t, os.FileMode(0o600), mode(t, msg))
	assert.Equal(t, os.FileMode(0o600), mode(t, reg))
	assert.Empty(t, problems(tr.doctor(), "permissions"), "repaired")
}

func TestDoctorOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	tr := newTree(t)
	msg := tr.write("b/inbox/1_a.msg.json", message)
	require.NoError(t, os.Chown(msg, 4242, 4242))
	d := doctorRun{root: tr.root, fix: true, maxBytes: 1 << 20}
	got := problems(d.run(), "permissions")
	require.Len(t, got, 1)
	assert.Equal(t, severityError, got[0].Severity)
	assert.False(t, got[0].Fixable, "only chown repairs it")
	assert.False(t, got[0].Fixed)
	assert.Contains(t, got[0].Detail, "owned by another user (uid 4242), e.g. b/inbox/1_a.msg.json")
}

func TestDoctorForeign(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	require.NoError(t, os.Symlink("/tmp", filepath.Join(tr.root, "elsewhere")))
	tr.write("b/processed/1_a.msg.json", message)
	tr.write("b/inbox/1_a.msg.json", message)
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(tr.root, "b", "processed", "2_a.msg.json")))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(tr.root, "b", "inbox", "3_a.msg.json"))) // the inbox check's
	mkfifo(t, filepath.Join(tr.root, "b", "pipe"))
	// The root's shared watcher's socket is the mailbox's own.
	ln, err := net.Listen("unix", filepath.Join(tr.root, fsstore.WatchSocketName))
	require.NoError(t, err)
	defer ln.Close()

	all := tr.doctor()
	got := problems(all, "foreign")
	require.Len(t, got, 3, "%v", got)
	assert.Equal(t, finding{Check: "foreign", Severity: severityWarn, Agent: "b", Path: filepath.Join(tr.root, "b", "pipe"),
		Detail: "a named pipe: the mailbox never follows or uses it; remove it unless you put it there"}, got[0])
	assert.Equal(t, "b", got[1].Agent)
	assert.Contains(t, got[1].Detail, "a symlink to /etc/passwd")
	assert.Equal(t, "", got[2].Agent, "a symlink at the root is no agent's")
	assert.Contains(t, got[2].Detail, "a symlink to /tmp")
	assert.Len(t, problems(all, "inbox"), 1, "the inbox symlink is reported once, by the inbox check")
	assert.FileExists(t, "/etc/passwd", "never followed")
}

func TestAgentOf(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	dir, err := os.ReadDir(filepath.Dir(tr.root))
	require.NoError(t, err)
	folder := dir[0] // "mb", a folder
	assert.Equal(t, "coder", agentOf(filepath.Join("coder", "inbox", "x.msg.json"), nil))
	assert.Equal(t, "mb", agentOf("mb", folder))
	assert.Equal(t, "", agentOf("_registry.json", nil), "a file of the root")
	assert.Equal(t, "", agentOf(filepath.Join("..", "x"), nil), "not an agent id")
	assert.True(t, inInbox(filepath.Join("coder", "inbox", "x")))
	assert.False(t, inInbox(filepath.Join("coder", "processed", "x")))
	assert.False(t, inInbox(filepath.Join("coder", "inbox")))
}

func TestDoctorSummary(t *testing.T) {
	t.Parallel()
	ok := finding{Severity: severityOK}
	warn := finding{Severity: severityWarn}
	fixable := finding{Severity: severityError, Fixable: true}
	fixed := finding{Severity: severityWarn, Fixable: true, Fixed: true}
	assert.Equal(t, "no problems found", doctorSummary([]finding{ok}, false))
	assert.Equal(t, "2 problem(s); switchboard doctor --fix repairs 1 of them, see DETAIL for the rest", doctorSummary([]finding{ok, warn, fixable}, false))
	assert.Equal(t, "1 problem(s); see DETAIL for what to do", doctorSummary([]finding{warn}, false))
	assert.Equal(t, "2 problem(s): 1 fixed, 1 left to repair by hand (see DETAIL)", doctorSummary([]finding{warn, fixed}, true))
}
