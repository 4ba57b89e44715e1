package mcptools_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/mcptools"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// gated serves the tool server's sessions while its gate is open and
// refuses connections while it is closed; every attempt is logged (true:
// served).
type gated struct {
	srv      *toolServer
	open     atomic.Bool
	attempts chan bool
}

func newGated() *gated { return &gated{srv: newToolServer(), attempts: make(chan bool, 1000)} }

func (g *gated) transport(t *testing.T) func(string, config.MCPServerConfig) (mcp.Transport, error) {
	serve := g.srv.transport(t)
	return func(name string, cfg config.MCPServerConfig) (mcp.Transport, error) {
		if !g.open.Load() {
			g.attempts <- false
			return nil, errors.New("connection refused")
		}
		g.attempts <- true
		return serve(name, cfg)
	}
}

// drain forgets the attempts logged so far.
func (g *gated) drain() {
	for {
		select {
		case <-g.attempts:
		default:
			return
		}
	}
}

// refusedTwice waits for two refused attempts in a row: the first one's
// outcome is recorded once the second starts.
func (g *gated) refusedTwice(t *testing.T) {
	t.Helper()
	refused := 0
	for refused < 2 {
		select {
		case served := <-g.attempts:
			if served {
				refused = 0
			} else {
				refused++
			}
		case <-time.After(testkit.WaitLimit):
			t.Fatal("the server was not tried twice")
		}
	}
}

// TestTheModelIsToldWhileAServerIsDown: a server that is down at start
// is in the note and its tools answer "is down ...; retrying" (though
// the loop has never seen their names); once it is up the note is empty
// and its tools work; when it dies mid-session it is down again, its
// tools say so, and it comes back by itself.
func TestTheModelIsToldWhileAServerIsDown(t *testing.T) {
	t.Parallel()
	g := newGated()
	connected := make(chan string, 10)
	s, tools := start(t, map[string]config.MCPServerConfig{"files": {Command: "unused"}},
		mcptools.Options{Transport: g.transport(t), MaxBackoff: 20 * time.Millisecond, StartWait: time.Millisecond,
			Connected: func(name string, _ []string) { connected <- name }})

	g.refusedTwice(t)
	assert.Equal(t, `MCP server "files" is down: connection refused; retrying: its tools (mcp_files_*) cannot be used until it is up.`, s.Note())
	reason, ok := s.Unavailable("mcp_files_echo")
	require.True(t, ok)
	assert.Equal(t, `MCP server "files" is down: connection refused; retrying (its tools mcp_files_* work again once it is up)`, reason)
	_, ok = s.Unavailable("mcp_other_echo")
	assert.False(t, ok, "a tool of no server")
	_, ok = tools.Get("mcp_files_echo")
	assert.False(t, ok, "no tool is offered before the server was up")

	g.open.Store(true)
	awaitConnected(t, connected)
	g.drain()
	assert.Empty(t, s.Note())
	out, err := call(t, tools, "mcp_files_echo", `{"text":"up"}`)
	require.NoError(t, err)
	assert.Equal(t, "echo: up", out)
	reason, ok = s.Unavailable("mcp_files_nope")
	assert.True(t, ok)
	assert.Contains(t, reason, `is up but offers no tool called "mcp_files_nope"`)

	// It dies mid-session and cannot be restarted for a while.
	g.open.Store(false)
	_, err = call(t, tools, "mcp_files_crash", `{}`)
	require.Error(t, err)
	g.refusedTwice(t)
	assert.Contains(t, s.Note(), `MCP server "files" is down: connection refused; retrying`)
	_, err = call(t, tools, "mcp_files_echo", `{"text":"down"}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `MCP server "files" is down: connection refused; retrying`)

	g.open.Store(true)
	awaitConnected(t, connected)
	assert.Empty(t, s.Note())
	out, err = call(t, tools, "mcp_files_echo", `{"text":"back"}`)
	require.NoError(t, err)
	assert.Equal(t, "echo: back", out)
}

// TestAServerStillConnectingIsInTheNote: before its first attempt ends,
// a server is "still connecting", with its connect limit.
func TestAServerStillConnectingIsInTheNote(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hang := func(string, config.MCPServerConfig) (mcp.Transport, error) {
		<-release
		return nil, errors.New("stopped")
	}
	s, _ := start(t, map[string]config.MCPServerConfig{"web": {URL: "http://x", ConnectTimeout: 90}},
		mcptools.Options{Transport: hang, StartWait: time.Millisecond})
	t.Cleanup(func() { close(release) }) // before Stop, which waits for the attempt
	assert.Equal(t, `MCP server "web" is still connecting (connectTimeout 1m30s): its tools (mcp_web_*) cannot be used until it is up.`, s.Note())
	reason, ok := s.Unavailable("mcp_web_search")
	assert.True(t, ok)
	assert.Contains(t, reason, `MCP server "web" is still connecting`)
}

// TestTheLongestServerPrefixDecides: with servers "a" and "a_b", a tool
// mcp_a_b_x is a's tool "b_x" or a_b's tool "x"; the longer prefix wins.
func TestTheLongestServerPrefixDecides(t *testing.T) {
	t.Parallel()
	refuse := func(name string, _ config.MCPServerConfig) (mcp.Transport, error) {
		return nil, errors.New(name + " refused")
	}
	s, _ := start(t, map[string]config.MCPServerConfig{"a": {Command: "x"}, "a_b": {Command: "x"}},
		mcptools.Options{Transport: refuse, StartWait: time.Minute})
	reason, ok := s.Unavailable("mcp_a_b_x")
	require.True(t, ok)
	assert.Contains(t, reason, `MCP server "a_b"`)
	reason, _ = s.Unavailable("mcp_a_c")
	assert.Contains(t, reason, `MCP server "a"`)
}

func awaitConnected(t *testing.T, connected <-chan string) {
	t.Helper()
	select {
	case <-connected:
	case <-time.After(testkit.WaitLimit):
		t.Fatal("the server did not connect")
	}
}
