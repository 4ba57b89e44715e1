package a2a_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Garbage sent to the gateway's endpoints gets an error answer and
// changes nothing: the agent gets no task, and the gateway serves the next
// client as before.
func TestServeGarbage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w := startWorker(t, root, "coder", nil, nil, reverse)
	g := startGateway(t, root, serveConfig("coder"))
	base := "http://" + g.Addr() + "/agents/coder"
	post := func(path, contentType string, body []byte) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(testkit.Ctx(t), http.MethodPost, base+path, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", contentType)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var out bytes.Buffer
		_, _ = out.ReadFrom(res.Body)
		return res.StatusCode, out.String()
	}
	rpc := func(body string) string {
		t.Helper()
		code, out := post("/jsonrpc", "application/json", []byte(body))
		assert.Less(t, code, 500, "JSON-RPC %s: %s", body, out)
		assert.Contains(t, out, `"error"`, "JSON-RPC %s", body)
		return out
	}
	rpc(`{not json`)
	rpc(`[]`)
	rpc(`{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": "nonsense"}`)
	rpc(`{"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {"message": {"role": "ROLE_USER", "messageId": "m1", "parts": []}}}`)
	rpc(`{"jsonrpc": "2.0", "id": 3, "method": "NoSuchMethod", "params": {}}`)
	rpc(`{"jsonrpc": "2.0", "id": 4, "method": "GetTask", "params": {"id": "../../etc/passwd"}}`)
	rpc(`{"jsonrpc": "2.0", "id": 5, "method": "CancelTask", "params": {"id": "no-such-task"}}`)

	code, _ := post("/rest/message:send", "application/json", []byte(`{"message": 42}`))
	assert.GreaterOrEqual(t, code, 400)
	assert.Less(t, code, 500)
	huge := `{"jsonrpc": "2.0", "id": 6, "method": "SendMessage", "params": {"message": {"role": "ROLE_USER", "messageId": "m2", "parts": [{"text": "` +
		strings.Repeat("a", 9<<20) + `"}]}}}`
	assert.NotContains(t, rpc(huge), `"result"`, "a body over the bound is refused")

	res, err := http.Get("http://" + g.Addr() + "/agents/..%2f..%2fetc/.well-known/agent-card.json")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)

	c := newClient(t, base)
	events := stream(t, c, userMessage("b a"))
	assert.Equal(t, a2a.TaskStateCompleted, states(events)[len(states(events))-1], "the gateway serves on")
	assert.Len(t, w.tasks.All(), 1, "coder got the good task only")
}
