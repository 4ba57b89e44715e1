package mcpserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/mcpserver"
)

const serverToken = "server-token-0123456789"

// post sends an MCP initialize request to url with the Authorization
// header auth ("" for none) and returns the status.
func post(t *testing.T, url, auth, host string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestHTTPNeedsTheToken: with a token every request must carry it; a
// request without it, or with another, is answered 401 before MCP sees
// it; a client with it works.
func TestHTTPNeedsTheToken(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	hs := httptest.NewServer(r.server(nil).HTTPHandler(mcpserver.HTTPOptions{Token: serverToken}))
	t.Cleanup(hs.Close)
	url := hs.URL + mcpserver.HTTPPath

	for _, auth := range []string{"", "Bearer wrong-token-0123456789", "Basic " + serverToken, serverToken} {
		resp := post(t, url, auth, "")
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "Authorization %q", auth)
		assert.Equal(t, `Bearer realm="switchboard mcp"`, resp.Header.Get("WWW-Authenticate"))
	}
	assert.Equal(t, http.StatusOK, post(t, url, "Bearer "+serverToken, "").StatusCode)

	c := dial(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearer(serverToken), MaxRetries: -1})
	text, isErr := c.try("register", map[string]any{"agent_id": "codex"})
	require.False(t, isErr, text)
}

// TestHTTPOnLoopbackWithoutToken: without a token the server answers,
// but not a request whose Host is not loopback (DNS rebinding: a web
// page's name resolved to 127.0.0.1).
func TestHTTPOnLoopbackWithoutToken(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	hs := httptest.NewServer(r.server(nil).HTTPHandler(mcpserver.HTTPOptions{}))
	t.Cleanup(hs.Close)
	url := hs.URL + mcpserver.HTTPPath
	assert.Equal(t, http.StatusOK, post(t, url, "", "").StatusCode)
	assert.Equal(t, http.StatusForbidden, post(t, url, "", "evil.example:80").StatusCode)
}

// TestHTTPRefusesABrowsersCrossOriginRequest: a page on another origin
// cannot drive the server through the visitor's browser.
func TestHTTPRefusesABrowsersCrossOriginRequest(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	hs := httptest.NewServer(r.server(nil).HTTPHandler(mcpserver.HTTPOptions{}))
	t.Cleanup(hs.Close)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL+mcpserver.HTTPPath, strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}
