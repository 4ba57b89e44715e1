package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool of an MCP server as the agent loop sees it: a call is
// forwarded to the server's current session, within the server's
// toolTimeout.
type Tool struct {
	srv    *server
	name   string
	remote string
	spec   agent.ToolSpec
}

var _ agent.Tool = (*Tool)(nil)

func newTool(srv *server, name string, t *mcp.Tool) *Tool {
	params, _ := schemaOf(t.InputSchema)
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	desc = strings.TrimSpace(desc + fmt.Sprintf(" (tool %q of MCP server %q)", t.Name, srv.name))
	return &Tool{srv: srv, name: name, remote: t.Name,
		spec: agent.ToolSpec{Name: name, Description: desc, Parameters: params}}
}

// schemaOf returns the input schema as a JSON object (an empty object
// schema when the server gave none).
func schemaOf(s any) (map[string]any, error) {
	out := map[string]any{}
	if s != nil {
		data, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, err
		}
	}
	if out["type"] == nil {
		out["type"] = "object"
	}
	if out["properties"] == nil {
		out["properties"] = map[string]any{}
	}
	return out, nil
}

// Name is the namespaced name, mcp_<server>_<tool>.
func (t *Tool) Name() string { return t.name }

// Spec describes the tool as its server does.
func (t *Tool) Spec() agent.ToolSpec { return t.spec }

// Execute calls the tool on the server. A server that is not running, a
// call past the timeout and a result the server marks as an error are
// errors the model reads.
func (t *Tool) Execute(ctx context.Context, call agent.Call) (string, error) {
	session, offered := t.srv.current(t.remote)
	if session == nil {
		return "", t.srv.downError()
	}
	if !offered {
		return "", fmt.Errorf("MCP server %q no longer offers tool %q; do without %s", t.srv.name, t.remote, t.name)
	}
	var args map[string]any
	if err := call.Decode(&args); err != nil {
		return "", err
	}
	timeout := t.srv.cfg.Timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: t.remote, Arguments: args})
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("tool %q of MCP server %q did not answer within %s (tools.mcpServers.%s.toolTimeout)", t.remote, t.srv.name, timeout, t.srv.name)
	case err != nil:
		return "", fmt.Errorf("MCP server %q, tool %q: %w", t.srv.name, t.remote, err)
	}
	text := render(res)
	if res.IsError {
		return "", errors.New(text)
	}
	return text, nil
}

// render turns a tool result into the text the model reads.
func render(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s]", c.URI))
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s]", c.Resource.URI))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(data))
		}
	}
	return strings.Join(parts, "\n")
}
