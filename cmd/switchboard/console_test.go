package main_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConsoleRefusesNonLoopbackWithoutToken: a console on an address other
// than loopback needs SWITCHBOARD_CONSOLE_TOKEN, and says so.
func TestConsoleRefusesNonLoopbackWithoutToken(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	r := s.run("console", "--listen", "0.0.0.0:0")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "not a loopback address: set SWITCHBOARD_CONSOLE_TOKEN")
	assert.True(t, strings.HasPrefix(r.stderr, "switchboard: "), r.stderr)
}

// TestConsoleGuards: the console's reads need its token unless
// --read-open (loopback only) says otherwise, and a request naming a
// foreign Host is refused even with the token.
func TestConsoleGuards(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	get := func(url, token, host string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("X-Console-Token", token)
		}
		if host != "" {
			req.Host = host
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	start := func(args ...string) (base, token string) {
		t.Helper()
		p := s.start(append([]string{"console", "--listen", "127.0.0.1:0"}, args...)...)
		url, ok := strings.CutPrefix(p.next(p.stdout, "the console's address"), "console ")
		require.True(t, ok)
		base, token, _ = strings.Cut(url, "#token=")
		return strings.TrimSuffix(base, "/"), token
	}

	base, token := start()
	assert.Equal(t, http.StatusOK, get(base+"/", "", ""), "the page, which holds no data")
	assert.Equal(t, http.StatusUnauthorized, get(base+"/api/state", "", ""), "reads need the token by default")
	assert.Equal(t, http.StatusOK, get(base+"/api/state", token, ""))
	assert.Equal(t, http.StatusForbidden, get(base+"/api/state", token, "evil.example:"+base[strings.LastIndex(base, ":")+1:]), "DNS rebinding")

	open, _ := start("--read-open")
	assert.Equal(t, http.StatusOK, get(open+"/api/state", "", ""))
	assert.Equal(t, http.StatusForbidden, get(open+"/api/state", "", "evil.example"))

	s.environ = []string{"SWITCHBOARD_CONSOLE_TOKEN=a-console-token-0123"}
	r := s.run("console", "--listen", "0.0.0.0:0", "--read-open")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--read-open is for a loopback address only")
}
