package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
)

// registryJSON is _registry.json as nanobot writes it (seed 001): cards
// keyed by agent id, isoformat timestamps with +00:00, non-ASCII text as
// is. researcher's heartbeat is months old (offline, whatever its status
// says); coder's is set to now by writeFixtures.
const registryJSON = `{
  "researcher": {
    "agent_id": "researcher",
    "description": "负责信息检索和分析的 agent",
    "capabilities": ["web_search", "code_analysis", "summarization"],
    "status": "idle",
    "allow_from": ["coder", "writer"],
    "max_concurrent_tasks": 3,
    "current_tasks": ["msg_1745659200_coder"],
    "registered_at": "2026-04-26T10:00:00+00:00",
    "last_heartbeat": "2026-04-26T10:05:00+00:00"
  },
  "coder": {
    "agent_id": "coder",
    "description": "负责代码编写和修改的 agent",
    "capabilities": ["code_write", "test_run", "review"],
    "status": "idle",
    "allow_from": ["*"],
    "max_concurrent_tasks": 3,
    "current_tasks": [],
    "registered_at": "2026-04-26T10:00:30+00:00",
    "last_heartbeat": "NOW"
  }
}
`

// taskFromNanobot is a task nanobot's researcher sent to coder, pending in
// coder's inbox: nanobot's non-unique id, ttl and trace null, a callback
// to the Feishu conversation it began in.
const taskFromNanobot = `{
  "id": "msg_1745659200_researcher",
  "from": "researcher",
  "to": "coder",
  "timestamp": "2026-04-26T10:00:00+00:00",
  "type": "task",
  "ttl": null,
  "trace": null,
  "task": {"id": "msg_1745659200_researcher", "state": "pending", "deadline": null},
  "content": {"parts": [{"type": "text", "text": "帮我写排序函数"}]},
  "callback": {"session_id": "feishu:user_123", "channel": "feishu"},
  "reply_to": null,
  "metadata": {}
}
`

// acceptedByNanobot is nanobot coder's answer to that task, already
// handled by researcher (in its processed/ folder).
const acceptedByNanobot = `{
  "id": "msg_1745659260_coder",
  "from": "coder",
  "to": "researcher",
  "timestamp": "2026-04-26T10:01:00+00:00",
  "type": "task_update",
  "ttl": 2,
  "trace": ["researcher", "coder"],
  "task": {"id": "msg_1745659200_researcher", "state": "accepted"},
  "content": {"parts": [{"type": "text", "text": "收到, 正在处理"}]},
  "callback": {"session_id": "feishu:user_123", "channel": "feishu"},
  "reply_to": "msg_1745659200_researcher",
  "metadata": {}
}
`

// Paths of the fixture messages under the root.
var (
	taskPath     = filepath.Join("coder", "inbox", "1745659200_researcher.msg.json")
	acceptedPath = filepath.Join("researcher", "processed", "1745659260_coder.msg.json")
)

// writeFixtures fills the root as nanobot agents would have left it.
func (s *sandbox) writeFixtures() {
	s.t.Helper()
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000+00:00") // Python's isoformat()
	s.writeNanobotFile("_registry.json", strings.Replace(registryJSON, "NOW", now, 1))
	s.writeNanobotFile(taskPath, taskFromNanobot)
	s.writeNanobotFile(acceptedPath, acceptedByNanobot)
}

// Modes of what nanobot creates: Python's mkdir and open under the usual
// umask 022.
const (
	nanobotDirMode  = 0o755
	nanobotFileMode = 0o644
)

// writeNanobotFile writes a file under the root as nanobot does: its
// folders 0755, the file 0644, written as rel's name + ".tmp" and renamed
// into place.
func (s *sandbox) writeNanobotFile(rel, content string) string {
	s.t.Helper()
	path := filepath.Join(s.root, rel)
	dir := filepath.Dir(path)
	require.NoError(s.t, os.MkdirAll(dir, nanobotDirMode))
	for d := dir; d != s.root; d = filepath.Dir(d) {
		require.NoError(s.t, os.Chmod(d, nanobotDirMode)) // whatever the umask
	}
	tmp := strings.TrimSuffix(path, ".json") + ".tmp"
	require.NoError(s.t, os.WriteFile(tmp, []byte(content), nanobotFileMode))
	require.NoError(s.t, os.Chmod(tmp, nanobotFileMode))
	require.NoError(s.t, os.Rename(tmp, path))
	return path
}

// writeFile writes a file under the root, creating its folders 0700.
func (s *sandbox) writeFile(rel, content string) string {
	s.t.Helper()
	path := filepath.Join(s.root, rel)
	require.NoError(s.t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(s.t, os.WriteFile(path, []byte(content), 0o600))
	return path
}
