package mcptools

import (
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/agentloop"
)

var _ agentloop.ToolStatus = (*Servers)(nil)

// downError is what a call to a tool of the server returns while the
// server is not connected: "MCP server X is down: <reason>; retrying".
func (s *server) downError() error {
	status := s.status()
	if status == "" { // connected since the caller looked
		status = "was reconnected just now; call the tool again"
	}
	return fmt.Errorf("MCP server %q %s (its tools %s* work again once it is up)", s.name, status, toolPrefix(s.name))
}

// toolPrefix is how the names of the server's tools start.
func toolPrefix(server string) string { return "mcp_" + clean(server) + "_" }

// Note tells the model which servers are not connected now and why ("" when
// every one is): a server that failed or dropped is down, with the reason,
// and is retried; one that has not connected yet is still connecting.
func (s *Servers) Note() string {
	var parts []string
	for _, srv := range s.servers {
		if status := srv.status(); status != "" {
			parts = append(parts, fmt.Sprintf("MCP server %q %s: its tools (%s*) cannot be used until it is up.",
				srv.name, status, toolPrefix(srv.name)))
		}
	}
	return strings.Join(parts, " ")
}

// Unavailable tells why the tool called name cannot be called when it
// belongs to a server that is not connected (a server that never
// connected has offered no tool yet, so the loop does not know its
// names): the server whose prefix of name is longest decides.
func (s *Servers) Unavailable(name string) (string, bool) {
	var match *server
	for _, srv := range s.servers {
		if p := toolPrefix(srv.name); strings.HasPrefix(name, p) && (match == nil || len(p) > len(toolPrefix(match.name))) {
			match = srv
		}
	}
	if match == nil {
		return "", false
	}
	if match.status() == "" {
		return fmt.Sprintf("MCP server %q is up but offers no tool called %q (available: the tools named %s*)", match.name, name, toolPrefix(match.name)), true
	}
	return match.downError().Error(), true
}
