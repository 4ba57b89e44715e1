package console_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/console"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// serve starts a console made with cfg (its store a fresh one) on ln
// (nil: a loopback address) and returns its base URL.
func serve(t *testing.T, cfg console.Config, ln net.Listener) string {
	t.Helper()
	be := store.New(memstore.New(memstore.Options{}), nil)
	t.Cleanup(func() { be.Close() })
	cfg.Store = be
	c, err := console.New(cfg)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(c.Handler())
	if ln != nil {
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// get requests path of base with the token (or not), and the Host and
// Origin headers when set, and returns the status.
func get(t *testing.T, base, path string, withToken bool, host, origin string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(testkit.Ctx(t), http.MethodGet, base+path, nil)
	require.NoError(t, err)
	if withToken {
		req.Header.Set(console.TokenHeader, token)
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// TestReadsNeedTheToken: by default every read needs the token, on
// loopback too; the page itself (no data) is served to load it.
// ReadOpen lets a request without the token read on loopback.
func TestReadsNeedTheToken(t *testing.T) {
	t.Parallel()
	closed := serve(t, console.Config{Token: token}, nil)
	assert.Equal(t, http.StatusOK, get(t, closed, "/", false, "", ""))
	assert.Equal(t, http.StatusOK, get(t, closed, "/app.js", false, "", ""))
	for _, path := range []string{"/api/state", "/api/session", "/api/events"} {
		assert.Equal(t, http.StatusUnauthorized, get(t, closed, path, false, "", ""), path)
	}
	assert.Equal(t, http.StatusOK, get(t, closed, "/api/state", true, "", ""))

	open := serve(t, console.Config{Token: token, ReadOpen: true}, nil)
	assert.Equal(t, http.StatusOK, get(t, open, "/api/state", false, "", ""))
	assert.Equal(t, http.StatusOK, get(t, open, "/api/state", true, "", ""))
}

// TestReadOpenIsForLoopbackOnly: a request that reached the console on
// another address needs the token even with ReadOpen.
func TestReadOpenIsForLoopbackOnly(t *testing.T) {
	t.Parallel()
	ip := outsideIP(t)
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	base := serve(t, console.Config{Token: token, ReadOpen: true}, ln)
	assert.Equal(t, http.StatusUnauthorized, get(t, base, "/api/state", false, "", ""))
	assert.Equal(t, http.StatusOK, get(t, base, "/api/state", true, "", ""))
	port := ln.Addr().(*net.TCPAddr).Port
	assert.Equal(t, http.StatusForbidden, get(t, base, "/api/state", true, net.JoinHostPort("localhost", strconv.Itoa(port)), ""),
		"localhost names no address but loopback")
}

// TestForeignHostAndOriginRefused: a request whose Host names another
// host (DNS rebinding: evil.example resolved to 127.0.0.1), or another
// port, is refused, even with the token, and so is one from another
// origin; localhost and any loopback address are this console on
// loopback; AllowHosts adds names.
func TestForeignHostAndOriginRefused(t *testing.T) {
	t.Parallel()
	base := serve(t, console.Config{Token: token, ReadOpen: true, AllowHosts: []string{"console.example"}}, nil)
	port := base[len("http://127.0.0.1:"):]
	for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1:1", "192.0.2.1:" + port} {
		assert.Equal(t, http.StatusForbidden, get(t, base, "/api/state", true, host, ""), "Host %s", host)
		assert.Equal(t, http.StatusForbidden, get(t, base, "/", false, host, ""), "the page too, Host %s", host)
	}
	for _, host := range []string{"localhost:" + port, "LOCALHOST:" + port, "127.0.0.2:" + port, "[::1]:" + port, "console.example:" + port} {
		assert.Equal(t, http.StatusOK, get(t, base, "/api/state", false, host, ""), "Host %s", host)
	}
	assert.Equal(t, http.StatusForbidden, get(t, base, "/api/state", true, "", "http://evil.example"))
	assert.Equal(t, http.StatusForbidden, get(t, base, "/api/state", true, "", "null"))
	assert.Equal(t, http.StatusOK, get(t, base, "/api/state", true, "", base))
}

// outsideIP returns an address of this machine that is not loopback, or
// skips the test.
func outsideIP(t *testing.T) net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil && !n.IP.IsLinkLocalUnicast() {
			return n.IP
		}
	}
	t.Skip("this machine has no address but loopback")
	return nil
}
