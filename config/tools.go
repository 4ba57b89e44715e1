package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// DefaultMCPToolTimeout is how long one call of an MCP server's tool may
// take when the server's toolTimeout is not set (nanobot's default).
const DefaultMCPToolTimeout = 30 * time.Second

// MCPServerConfig is one entry of "tools.mcpServers", as nanobot writes
// it: a command to run (stdio) or a URL (streamable HTTP).
type MCPServerConfig struct {
	// Type is "stdio" or "streamableHttp"; empty: stdio when Command is
	// set, else streamableHttp. nanobot's "sse" is not supported.
	Type string `json:"type"`
	// Command is the program to run (stdio), e.g. "npx".
	Command string `json:"command"`
	// Args are the command's arguments.
	Args []string `json:"args"`
	// Env are environment variables added to the command's environment.
	Env map[string]string `json:"env"`
	// URL is the server's streamable HTTP endpoint.
	URL string `json:"url"`
	// Headers are sent with every HTTP request to URL.
	Headers map[string]string `json:"headers"`
	// ToolTimeout is the limit of one tool call in seconds; zero means
	// DefaultMCPToolTimeout.
	ToolTimeout float64 `json:"toolTimeout"`
	// ConnectTimeout (switchboard's own key) is the limit of one
	// connection in seconds: starting the server, the MCP handshake and
	// listing its tools (a server started with `npx -y` may first
	// download itself); zero means the host's default (20 s). The host
	// serves meanwhile: the server connects in the background.
	ConnectTimeout float64 `json:"connectTimeout"`
}

// MaxMCPConnectTimeout bounds MCPServerConfig.ConnectTimeout: a day.
const MaxMCPConnectTimeout = 86400

// ConnectLimit returns ConnectTimeout as a duration, def when it is zero.
func (s MCPServerConfig) ConnectLimit(def time.Duration) time.Duration {
	if s.ConnectTimeout <= 0 {
		return def
	}
	return time.Duration(s.ConnectTimeout * float64(time.Second))
}

// The transports of MCPServerConfig.Type.
const (
	MCPStdio          = "stdio"
	MCPStreamableHTTP = "streamableHttp"
)

// Transport returns the server's transport: Type, or the one its keys
// imply.
func (s MCPServerConfig) Transport() string {
	switch {
	case s.Type != "":
		return s.Type
	case s.Command != "":
		return MCPStdio
	default:
		return MCPStreamableHTTP
	}
}

// Timeout returns ToolTimeout as a duration (DefaultMCPToolTimeout when
// it is zero or less).
func (s MCPServerConfig) Timeout() time.Duration {
	if s.ToolTimeout <= 0 {
		return DefaultMCPToolTimeout
	}
	return time.Duration(s.ToolTimeout * float64(time.Second))
}

// MCPServers decodes "tools.mcpServers", the MCP servers whose tools the
// agent loop offers, keyed by server name. Each entry is decoded strictly:
// an unknown key, a bad value, a stdio server without command or an HTTP
// server without url is an error naming its key path.
func (c *Config) MCPServers() (map[string]MCPServerConfig, error) {
	raw, ok := c.Tools["mcpServers"]
	if !ok || raw == nil {
		return map[string]MCPServerConfig{}, nil
	}
	servers, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("tools.mcpServers: want an object of servers keyed by name, got %s", show(raw))
	}
	out := make(map[string]MCPServerConfig, len(servers))
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		path := "tools.mcpServers." + name
		entry, ok := servers[name].(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: want an object with command (stdio) or url (streamable HTTP), got %s", path, show(servers[name])))
			continue
		}
		var s MCPServerConfig
		if err := Decode(entry, path, &s); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := s.check(path); err != nil {
			errs = append(errs, err)
			continue
		}
		out[name] = s
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// check reports a server entry that cannot be started.
func (s MCPServerConfig) check(path string) error {
	switch s.Transport() {
	case MCPStdio:
		if s.Command == "" {
			return fmt.Errorf("%s.command: a stdio server needs the command to run (or set url for streamable HTTP)", path)
		}
	case MCPStreamableHTTP:
		if s.URL == "" {
			return fmt.Errorf("%s.url: set the server's streamable HTTP endpoint (or command for a stdio server)", path)
		}
	default:
		return fmt.Errorf("%s.type: %q is not supported; want %q or %q", path, s.Type, MCPStdio, MCPStreamableHTTP)
	}
	if s.ToolTimeout < 0 {
		return fmt.Errorf("%s.toolTimeout: want a number of seconds of 0 or more, got %s", path, show(s.ToolTimeout))
	}
	if !(s.ConnectTimeout >= 0 && s.ConnectTimeout <= MaxMCPConnectTimeout) {
		return fmt.Errorf("%s.connectTimeout: want a number of seconds from 0 (the default, 20) to %d (a day), got %s",
			path, MaxMCPConnectTimeout, show(s.ConnectTimeout))
	}
	return nil
}
