package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree is a mailbox root for doctor's checks.
type tree struct {
	t    *testing.T
	root string
}

func newTree(t *testing.T) *tree {
	root := filepath.Join(t.TempDir(), "mb")
	require.NoError(t, os.Mkdir(root, 0o700))
	require.NoError(t, os.Chmod(root, 0o700))
	return &tree{t: t, root: root}
}

func (tr *tree) write(rel, content string) string {
	path := filepath.Join(tr.root, rel)
	require.NoError(tr.t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(tr.t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func (tr *tree) doctor() []finding {
	d := doctorRun{root: tr.root, now: time.Now(), offlineAfter: 30 * time.Second, maxBytes: 1 << 20}
	return d.run()
}

// problems returns the findings of check that are not ok.
func problems(all []finding, check string) []finding {
	var out []finding
	for _, f := range all {
		if f.Check == check && f.Severity != severityOK {
			out = append(out, f)
		}
	}
	return out
}

const message = `{"id": "m1", "from": "a", "to": "b", "timestamp": "2026-04-26T10:00:00+00:00", "type": "message"}`

func TestDoctorRegistry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		setup    func(tr *tree)
		severity string
		agent    string
		detail   string
	}{
		{name: "symlink", severity: severityError, detail: "is a symlink", setup: func(tr *tree) {
			require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(tr.root, registryFile)))
		}},
		{name: "folder", severity: severityError, detail: "not a regular file", setup: func(tr *tree) {
			require.NoError(t, os.Mkdir(filepath.Join(tr.root, registryFile), 0o700))
		}},
		{name: "null", severity: severityError, detail: "corrupt (null instead of an object)", setup: func(tr *tree) {
			tr.write(registryFile, "null")
		}},
		{name: "torn", severity: severityError, detail: "corrupt (invalid character", setup: func(tr *tree) {
			tr.write(registryFile, `{"a": {}}}`)
		}},
		{name: "bad card", severity: severityError, agent: "a", detail: "card unreadable", setup: func(tr *tree) {
			tr.write(registryFile, `{"a": {"agent_id": "a", "capabilities": "all"}}`)
		}},
		{name: "key and id differ", severity: severityWarn, agent: "a", detail: `card under key "a" says agent_id "b"`, setup: func(tr *tree) {
			tr.write(registryFile, `{"a": {"agent_id": "b"}}`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTree(t)
			tt.setup(tr)
			got := problems(tr.doctor(), "registry")
			require.Len(t, got, 1)
			assert.Equal(t, tt.severity, got[0].Severity)
			assert.Equal(t, tt.agent, got[0].Agent)
			assert.Contains(t, got[0].Detail, tt.detail)
		})
	}
	t.Run("blank", func(t *testing.T) {
		tr := newTree(t)
		tr.write(registryFile, " \n")
		assert.Empty(t, problems(tr.doctor(), "registry"))
	})
}

func TestDoctorRoot(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	require.NoError(t, os.Chmod(tr.root, 0o750))
	got := tr.doctor()
	assert.Equal(t, severityWarn, got[0].Severity)
	assert.Contains(t, got[0].Detail, "others can read every agent's mail")
	assert.Len(t, got, len(checkOrder), "the other checks still run")

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	d := doctorRun{root: file}
	got = d.run()
	require.Len(t, got, 1)
	assert.Equal(t, finding{Check: "root", Severity: severityError, Path: file, Detail: "not a folder"}, got[0])
}

func TestDoctorInbox(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	tr.write("b/inbox/1_a.msg.json", message)
	tr.write("c/inbox/1_a.msg.json", message) // addressed to b
	tr.write("c/inbox/2_a.msg.json", `{"id": `)
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(tr.root, "c/inbox/3_a.msg.json")))
	require.NoError(t, os.Mkdir(filepath.Join(tr.root, "c/inbox/4_a.msg.json"), 0o700))
	tr.write("c/inbox/5_a.msg.tmp", "{") // being written

	got := problems(tr.doctor(), "inbox")
	require.Len(t, got, 4)
	for _, f := range got {
		assert.Equal(t, "c", f.Agent)
		assert.Equal(t, severityWarn, f.Severity)
	}
	assert.Contains(t, got[0].Detail, `addressed to "b"`)
	assert.Contains(t, got[1].Detail, "unreadable: malformed message")
	assert.Contains(t, got[2].Detail, "symlink")
	assert.Contains(t, got[3].Detail, "not a regular file")
}

func TestDoctorRejectedAndOffline(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	tr.write("b/rejected/1.msg.json", "{")
	tr.write("b/rejected/1.msg.json"+reasonSuffix, `{"reason": "malformed message: truncated JSON"}`)
	tr.write("b/rejected/2.msg.json", "{")
	tr.write("b/rejected/2.msg.json"+reasonSuffix, `{"reason": "malformed message: truncated JSON"}`)
	tr.write("b/rejected/3", "x")
	tr.write("b/rejected/.3"+reasonSuffix+".abc.tmp", "") // a reason being written
	hb := time.Now().UTC().Format(time.RFC3339)
	tr.write(registryFile, `{"b": {"agent_id": "b", "last_heartbeat": "`+hb+`"},
		"c": {"agent_id": "c", "status": "offline", "last_heartbeat": "`+hb+`"}}`)
	tr.write("b/inbox/1_a.msg.json", message)
	tr.write("c/inbox/1_a.msg.json", `{"id": "m1", "from": "a", "to": "c", "timestamp": "2026-04-26T10:00:00+00:00", "type": "message"}`)

	all := tr.doctor()
	rejected := problems(all, "rejected")
	require.Len(t, rejected, 1)
	assert.Equal(t, "3 file(s) quarantined: malformed message: truncated JSON (×2); no reason recorded", rejected[0].Detail)

	offline := problems(all, "offline_agent")
	require.Len(t, offline, 1, "b is online; c said it stopped")
	assert.Equal(t, "c", offline[0].Agent)
	assert.Contains(t, offline[0].Detail, "offline (last heartbeat")
}
