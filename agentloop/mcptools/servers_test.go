package mcptools_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/mcptools"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// toolServer is an in-process MCP server with the tools echo, crash (which
// ends the session, as a dying server would) and slow (which answers only
// when its call is cancelled). Every connection is logged.
type toolServer struct {
	connects *testkit.Log[int]
	n        int
}

func newToolServer() *toolServer { return &toolServer{connects: testkit.NewLog[int]()} }

func (s *toolServer) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tools", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "crash", Description: "End the session."},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			go req.Session.Close()
			return nil, nil, errors.New("crashing")
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "slow", Description: "Never answer."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	return srv
}

// transport connects a fresh server session per connection.
func (s *toolServer) transport(t *testing.T) func(string, config.MCPServerConfig) (mcp.Transport, error) {
	return func(string, config.MCPServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.server().Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		s.n++ // connections are made one at a time by the server's supervisor
		s.connects.Add(s.n)
		return ct, nil
	}
}

func start(t *testing.T, cfgs map[string]config.MCPServerConfig, opts mcptools.Options) (*mcptools.Servers, *agentloop.Tools) {
	t.Helper()
	tools := &agentloop.Tools{}
	opts.MinBackoff = time.Millisecond
	s := mcptools.New(cfgs, tools, opts)
	require.NoError(t, s.Start(testkit.Ctx(t)))
	t.Cleanup(func() { assert.NoError(t, s.Stop(context.Background())) })
	return s, tools
}

func call(t *testing.T, tools *agentloop.Tools, name, args string) (string, error) {
	t.Helper()
	tool, ok := tools.Get(name)
	require.True(t, ok, "tool %s offered (have %v)", name, tools.Names())
	return tool.Execute(testkit.Ctx(t), agent.Call{Name: name, Arguments: args})
}

func TestToolsAreOfferedNamespacedAndCalled(t *testing.T) {
	t.Parallel()
	ts := newToolServer()
	_, tools := start(t, map[string]config.MCPServerConfig{"files": {Command: "unused"}},
		mcptools.Options{Transport: ts.transport(t)})

	assert.Equal(t, []string{"mcp_files_crash", "mcp_files_echo", "mcp_files_slow"}, slices.Sorted(slices.Values(tools.Names())))
	tool, _ := tools.Get("mcp_files_echo")
	spec := tool.Spec()
	assert.Contains(t, spec.Description, "Echo the text.")
	assert.Equal(t, "object", spec.Parameters["type"])
	assert.Contains(t, spec.Parameters["properties"], "text")

	out, err := call(t, tools, "mcp_files_echo", `{"text":"hi"}`)
	require.NoError(t, err)
	assert.Equal(t, "echo: hi", out)
}

func TestACrashedServerIsRestarted(t *testing.T) {
	t.Parallel()
	ts := newToolServer()
	connected := testkit.NewLog[string]()
	_, tools := start(t, map[string]config.MCPServerConfig{"s": {Command: "unused"}},
		mcptools.Options{Transport: ts.transport(t), Connected: func(name string, _ []string) { connected.Add(name) }})

	_, err := call(t, tools, "mcp_s_crash", `{}`)
	require.Error(t, err)
	connected.WaitCount(t, "the restarted session", 2, nil)
	out, err := call(t, tools, "mcp_s_echo", `{"text":"again"}`)
	require.NoError(t, err)
	assert.Equal(t, "echo: again", out)
}

func TestACallPastTheToolTimeoutFails(t *testing.T) {
	t.Parallel()
	ts := newToolServer()
	_, tools := start(t, map[string]config.MCPServerConfig{"s": {Command: "unused", ToolTimeout: 0.05}},
		mcptools.Options{Transport: ts.transport(t)})

	_, err := call(t, tools, "mcp_s_slow", `{}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "toolTimeout")
}

func TestAServerThatCannotStartDoesNotStopTheOthers(t *testing.T) {
	t.Parallel()
	ts := newToolServer()
	attempts := testkit.NewLog[string]()
	good := ts.transport(t)
	_, tools := start(t, map[string]config.MCPServerConfig{"bad": {Command: "unused"}, "good": {Command: "unused"}},
		mcptools.Options{Transport: func(name string, cfg config.MCPServerConfig) (mcp.Transport, error) {
			attempts.Add(name)
			if name == "bad" {
				return nil, errors.New("no such program")
			}
			return good(name, cfg)
		}})

	out, err := call(t, tools, "mcp_good_echo", `{"text":"ok"}`)
	require.NoError(t, err)
	assert.Equal(t, "echo: ok", out)
	attempts.WaitCount(t, "retries of the bad server", 3, func(n string) bool { return n == "bad" })
	for _, name := range tools.Names() {
		assert.False(t, strings.HasPrefix(name, "mcp_bad_"), name)
	}
}

func TestAStdioServerThatIsMissingIsReported(t *testing.T) {
	t.Parallel()
	_, err := mcptools.Transport(config.MCPServerConfig{Type: "sse", URL: "http://x"}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"sse" is not supported`)
}

func TestToolName(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "mcp_my_server_read_file", mcptools.ToolName("my.server", "read/file"))
	long := strings.Repeat("x", 80)
	a, b := mcptools.ToolName("s", long+"a"), mcptools.ToolName("s", long+"b")
	assert.Len(t, a, 64)
	assert.NotEqual(t, a, b)
}

// TestStartDoesNotWaitForASlowServer: a server that takes long to connect
// (npx downloading itself) keeps Start no longer than StartWait, however
// long its connect limit: every server after it is still waited for
// no further, and its connection goes on in the background within its
// own connectTimeout.
func TestStartDoesNotWaitForASlowServer(t *testing.T) {
	t.Parallel()
	srv := newToolServer()
	quick := srv.transport(t)
	hang := func(name string, cfg config.MCPServerConfig) (mcp.Transport, error) {
		if name == "quick" {
			return quick(name, cfg)
		}
		ct, st := mcp.NewInMemoryTransports()
		conn, err := st.Connect(context.Background())
		if err != nil {
			return nil, err
		}
		go func() { // reads the handshake and never answers it
			defer conn.Close()
			for {
				if _, err := conn.Read(context.Background()); err != nil {
					return
				}
			}
		}()
		return ct, nil
	}
	cfgs := map[string]config.MCPServerConfig{
		"a-slow": {Command: "npx", ConnectTimeout: 3600},
		"b-slow": {Command: "npx", ConnectTimeout: 3600},
		"quick":  {Command: "tools"},
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		start(t, cfgs, mcptools.Options{Transport: hang, StartWait: 10 * time.Millisecond})
	}()
	select {
	case <-done:
	case <-time.After(testkit.WaitLimit):
		t.Fatal("Start waited for servers that connect slowly")
	}
}
