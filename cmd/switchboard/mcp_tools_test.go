package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helperEnv makes the test binary, run again, the MCP tool server of
// TestHelperMCPToolServer.
const helperEnv = "SWITCHBOARD_TEST_MCP_TOOL_SERVER"

// helperGateEnv, when set, names a file without which the helper server
// exits at once, as a server that is down.
const helperGateEnv = "SWITCHBOARD_TEST_MCP_TOOL_GATE"

// TestHelperMCPToolServer is not a test: run with helperEnv set, it is a
// small MCP tool server on stdio with the tools echo and crash (which
// kills the process, as a server that dies).
func TestHelperMCPToolServer(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("a helper process, run by TestHostUsesMCPTools")
	}
	if gate := os.Getenv(helperGateEnv); gate != "" {
		if _, err := os.Stat(gate); err != nil {
			os.Exit(1) // down: it dies before the handshake
		}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "helper", Version: "1"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echoed " + in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "crash", Description: "Kill the server."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	_ = srv.Run(context.Background(), &mcp.StdioTransport{})
}

// toolModel is a fake OpenAI-compatible model: "echo WORD" asks for the
// tool mcp_helper_echo, "crash" for mcp_helper_crash, and a tool result
// is answered with "tool said: RESULT".
type toolModel struct{}

var echoWord = regexp.MustCompile(`echo (\w+)`)

func (toolModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	data, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(data, &body)
	last := body.Messages[len(body.Messages)-1]
	var content string
	_ = json.Unmarshal(last.Content, &content)
	w.Header().Set("Content-Type", "application/json")
	answer := func(text string) {
		out, _ := json.Marshal(text)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"m",
			"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, out)
	}
	callTool := func(name, args string) {
		a, _ := json.Marshal(args)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"m",
			"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[
			{"id":"call_1","type":"function","function":{"name":%q,"arguments":%s}}]},"finish_reason":"tool_calls"}]}`, name, a)
	}
	switch {
	case last.Role == "tool":
		answer("tool said: " + content)
	case strings.Contains(content, "crash"):
		callTool("mcp_helper_crash", `{}`)
	case echoWord.MatchString(content):
		callTool("mcp_helper_echo", fmt.Sprintf(`{"text":%q}`, echoWord.FindStringSubmatch(content)[1]))
	default:
		answer("say echo WORD or crash")
	}
}

// TestHostUsesMCPTools: a host whose config names an MCP tool server
// (tools.mcpServers, nanobot's shape) offers its tools to the model as
// mcp_helper_*; the model calls one and answers with its result; the
// server crashes, the host keeps answering, restarts it, and the tool
// works again.
func TestHostUsesMCPTools(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	llm := httptest.NewServer(toolModel{})
	defer llm.Close()
	server, _ := json.Marshal(map[string]any{"command": os.Args[0],
		"args": []string{"-test.run=^TestHelperMCPToolServer$"}, "env": map[string]string{helperEnv: "1"}, "toolTimeout": 20})
	conf := s.writeConfig("worker.json", `{"agents": {"defaults": {"provider": "openai"}},
		"providers": {"openai": {"apiKey": "k", "apiBase": "`+llm.URL+`/v1", "model": "m", "maxRetries": 0}},
		"channels": {"mailbox": {"enabled": true, "agentId": "worker"}},
		"tools": {"mcpServers": {"helper": `+string(server)+`}}}`)

	host := s.start("run", "--config", conf)
	host.awaitLine("mcp server connected")
	host.awaitLine("host running")
	recv := s.start("recv", "user", "--json")
	recv.awaitStderr("listening as user")
	reply := func(what string) string {
		t.Helper()
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, what)), &line))
		return line["content"].(string)
	}

	s.sendID("--from", "user", "--to", "worker", "--text", "please echo hello")
	assert.Equal(t, "tool said: echoed hello", reply("the echo"))

	s.sendID("--from", "user", "--to", "worker", "--text", "now crash")
	assert.Contains(t, reply("the answer after the crash"), "tool said: error:")
	host.awaitLine("mcp server ended; restarting")
	host.awaitLine("mcp server connected")

	s.sendID("--from", "user", "--to", "worker", "--text", "echo again")
	assert.Equal(t, "tool said: echoed again", reply("the echo after the restart"))

	host.signal(sigterm)
	assert.Equal(t, 0, host.wait(), "stderr:\n%s", host.stderrSoFar())
}
