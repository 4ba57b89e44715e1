package mcpserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore" // registers the backend "fs"
	"github.com/switchboard-dev/switchboard/internal/mcpserver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// rig is a mailbox folder that servers of several agents share.
type rig struct {
	t    *testing.T
	root string
}

func newRig(t *testing.T) *rig { return &rig{t: t, root: t.TempDir()} }

// config is the mailbox settings of agent id on the rig's folder.
func (r *rig) config(id string) (mailbox.Config, error) {
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot, cfg.Backend = id, r.root, "fs"
	return cfg, nil
}

// server returns a server on the rig with auth (nil: trusts clients),
// closed at the end of the test.
func (r *rig) server(auth mcpserver.AgentAuth) *mcpserver.Server {
	r.t.Helper()
	s, err := mcpserver.New(mcpserver.Options{Config: r.config, Auth: auth})
	require.NoError(r.t, err)
	r.t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// store opens the rig's folder as the command line does.
func (r *rig) store() *store.Store {
	r.t.Helper()
	cfg, _ := r.config("")
	st, err := store.Open("fs", cfg.StoreConfig())
	require.NoError(r.t, err)
	r.t.Cleanup(func() { _ = st.Close() })
	return st
}

// deliver stores a message from → to (replying to replyTo, in thread)
// and returns its id.
func (r *rig) deliver(from, to, text, replyTo, thread string) string {
	r.t.Helper()
	m := &envelope.Message{ID: envelope.NewID(), From: from, To: to, Timestamp: envelope.NewTime(time.Now()),
		Type: envelope.TypeMessage, TTL: 3, Trace: []string{from}, ReplyTo: replyTo, ThreadID: thread,
		Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(text)}}}
	require.NoError(r.t, r.store().Deliver(testkit.Ctx(r.t), m))
	return m.ID
}

// client is an MCP client session.
type client struct {
	t *testing.T
	*mcp.ClientSession
}

// connect connects a client to s in memory.
func connect(t *testing.T, s *mcpserver.Server) *client {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(testkit.Ctx(t), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	return dial(t, ct)
}

// dial connects a client over transport.
func dial(t *testing.T, transport mcp.Transport) *client {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(testkit.Ctx(t), transport, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return &client{t: t, ClientSession: cs}
}

// try calls tool name and returns its text and whether it is an error.
func (c *client) try(name string, args map[string]any) (string, bool) {
	c.t.Helper()
	res, err := c.CallTool(testkit.Ctx(c.t), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(c.t, err, name)
	var parts []string
	for _, content := range res.Content {
		if tc, ok := content.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

// bearer is an HTTP client that sends token on every request.
func bearer(token string) *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+token)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
