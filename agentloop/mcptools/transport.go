package mcptools

import (
	"fmt"
	"net/http"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/config"
)

// terminateAfter is how long a stdio server has to exit once its stdin is
// closed before it is sent SIGTERM.
const terminateAfter = 2 * time.Second

// Transport returns a fresh transport to the server cfg describes (a
// command is started anew by each Connect): a stdio command with environ
// plus cfg.Env, or a streamable HTTP endpoint sending cfg.Headers.
func Transport(cfg config.MCPServerConfig, environ []string) (mcp.Transport, error) {
	switch cfg.Transport() {
	case config.MCPStdio:
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Env = append(append([]string(nil), environ...), envList(cfg.Env)...)
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}, nil
	case config.MCPStreamableHTTP:
		client := &http.Client{Transport: headers{values: cfg.Headers, next: http.DefaultTransport}}
		return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: -1}, nil
	}
	return nil, fmt.Errorf("transport %q is not supported; want %q or %q", cfg.Type, config.MCPStdio, config.MCPStreamableHTTP)
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// headers adds configured headers to every request.
type headers struct {
	values map[string]string
	next   http.RoundTripper
}

func (h headers) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.values) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.values {
			req.Header.Set(k, v)
		}
	}
	return h.next.RoundTrip(req)
}
