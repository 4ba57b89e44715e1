package main_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bearerClient is an HTTP client that sends token on every request.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: bearerTransport(token)}
}

type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPListenNeedsAToken: `mcp --listen` on an address other than
// loopback does not start without a token, and says how to give one; the
// token flags are refused without --listen.
func TestMCPListenNeedsAToken(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	r := s.run("mcp", "--listen", "0.0.0.0:0")
	assertOneLineError(t, r, 2, "not a loopback address")
	assert.Contains(t, r.stderr, "SWITCHBOARD_MCP_TOKEN")
	assert.Contains(t, r.stderr, "--token-file")
	assertOneLineError(t, s.run("mcp", "--token-file", "x"), 2, "go with --listen")

	s.environ = []string{"SWITCHBOARD_MCP_TOKEN=short"}
	assertOneLineError(t, s.run("mcp", "--listen", "0.0.0.0:0"), 2, "at least 16 characters")

	open := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(open, []byte("a-long-enough-token-0123"), 0o644))
	require.NoError(t, os.Chmod(open, 0o644))
	s.environ = nil
	assertOneLineError(t, s.run("mcp", "--listen", "0.0.0.0:0", "--token-file", open), 1, "chmod 600")
}

// TestMCPOverTheNetwork: `mcp --listen 0.0.0.0:PORT` with a token answers
// only requests that carry it; a client with it cannot register as an
// agent whose process is down, nor as one with a configured token without
// that token; with it, it can.
func TestMCPOverTheNetwork(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	const serverToken, codexToken = "server-token-0123456789", "codex-token-0123456789"
	tokens := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tokens, "codex.token"), []byte(codexToken), 0o600))

	coder := s.start("recv", "coder")
	coder.awaitStderr("listening as coder")
	coder.signal(sigterm)
	coder.wait() // coder's card stays: an agent whose process is down

	s.environ = []string{"SWITCHBOARD_MCP_TOKEN=" + serverToken}
	srv := s.start("mcp", "--listen", "0.0.0.0:0", "--agent-tokens", tokens, "--log-level", "warn")
	port := regexp.MustCompile(`http://\S+:(\d+)/mcp`).FindStringSubmatch(srv.awaitLine("serving MCP on"))
	require.NotNil(t, port)
	url := "http://127.0.0.1:" + port[1] + "/mcp"

	for _, auth := range []string{"", "Bearer not-the-server-token-0123"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{}`))
		require.NoError(t, err)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "Authorization %q", auth)
	}

	c := connectMCP(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearerClient(serverToken), MaxRetries: -1})
	text, isErr := c.try("register", map[string]any{"agent_id": "coder"})
	assert.True(t, isErr)
	assert.Contains(t, text, "agent coder exists, and registering as it needs its token")
	text, isErr = c.try("register", map[string]any{"agent_id": "codex", "token": "not-codex-token-0123456"})
	assert.True(t, isErr)
	assert.Contains(t, text, "not the one configured")
	c.call("register", map[string]any{"agent_id": "codex", "token": codexToken})
	assert.Contains(t, s.ok("agents", "--json"), `"codex"`)
	assert.Contains(t, srv.stderrSoFar(), "mcp registration refused")

	srv.signal(os.Interrupt)
	assert.Equal(t, 0, srv.wait())
}

// TestMCPRegisterWithKey: a client proves it is coder, whose process is
// down, with coder's key: it signs the challenge tool's nonce with
// `switchboard keys prove` where the key is. A proof made with another
// key (a config naming a key file of its own) is refused.
func TestMCPRegisterWithKey(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	const serverToken = "server-token-0123456789"
	s.startStop("coder")
	assert.Regexp(t, `^U[A-Z0-9]{55}\tstore\tcoder/state/signing-key\n$`, s.ok("keys", "show", "coder"))

	s.environ = []string{"SWITCHBOARD_MCP_TOKEN=" + serverToken}
	srv := s.start("mcp", "--listen", "127.0.0.1:0", "--log-level", "warn")
	port := regexp.MustCompile(`http://\S+:(\d+)/mcp`).FindStringSubmatch(srv.awaitLine("serving MCP on"))
	require.NotNil(t, port)
	c := connectMCP(t, &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:" + port[1] + "/mcp",
		HTTPClient: bearerClient(serverToken), MaxRetries: -1})
	nonce := func() string {
		var out struct{ Nonce string }
		require.NoError(t, json.Unmarshal([]byte(c.call("challenge", map[string]any{})), &out))
		return out.Nonce
	}

	mallory, err := nkeys.CreateUser()
	require.NoError(t, err)
	seed, err := mallory.Seed()
	require.NoError(t, err)
	keyFile := filepath.Join(s.home, "mallory.nk")
	require.NoError(t, os.WriteFile(keyFile, seed, 0o600))
	forger := s.writeConfig("forger.json", `{"channels": {"mailbox": {"agentId": "coder", "keyFile": "`+keyFile+`"}}}`)
	forged := strings.TrimSpace(s.ok("--config", forger, "keys", "prove", "coder", nonce()))
	text, isErr := c.try("register", map[string]any{"agent_id": "coder", "token": forged})
	assert.True(t, isErr)
	assert.Contains(t, text, "not a signature of the challenge by the agent's key")

	proof := strings.TrimSpace(s.ok("keys", "prove", "coder", nonce()))
	c.call("register", map[string]any{"agent_id": "coder", "token": proof})
	srv.signal(os.Interrupt)
	assert.Equal(t, 0, srv.wait())
}
