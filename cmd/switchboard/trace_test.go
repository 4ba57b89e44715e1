package main_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// gotSpan is one span a collector received, with the agent of the process
// that made it (its resource's gen_ai.agent.name).
type gotSpan struct {
	agent, name, trace, id, parent string
	kind                           tracepb.Span_SpanKind
	attrs                          map[string]string
}

// collector is an OTLP/HTTP receiver on 127.0.0.1 that keeps every span.
type collector struct {
	url   string
	mu    sync.Mutex
	spans []gotSpan
}

func newCollector(t *testing.T) *collector {
	t.Helper()
	c := &collector{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(c.serve)}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	c.url = "http://" + ln.Addr().String()
	return c
}

func (c *collector) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
		http.Error(w, fmt.Sprintf("bad export %s %q: %v", r.URL.Path, r.Header.Get("Content-Type"), err), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		agent := attrMap(rs.GetResource().GetAttributes())["gen_ai.agent.name"]
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, gotSpan{agent: agent, name: s.Name, kind: s.Kind,
					trace: hex.EncodeToString(s.TraceId), id: hex.EncodeToString(s.SpanId),
					parent: hex.EncodeToString(s.ParentSpanId), attrs: attrMap(s.Attributes)})
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(nil)
}

func (c *collector) all() []gotSpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			m[kv.Key] = v.GetStringValue()
		case v.GetArrayValue() != nil:
			m[kv.Key] = fmt.Sprint(v.GetArrayValue().GetValues())
		default:
			m[kv.Key] = fmt.Sprint(v.GetIntValue())
		}
	}
	return m
}

// TestDemoOneTrace runs the two-process demo exporting spans over OTLP to
// a collector of the test's own: the Feishu message, researcher's turn,
// the task to coder, coder's turn and the answer back to the user are one
// trace, every span's parent is in it, and it spans both processes.
func TestDemoOneTrace(t *testing.T) {
	t.Parallel()
	col := newCollector(t)
	s := newSandbox(t)
	s.environ = append(s.environ, "OTEL_EXPORTER_OTLP_ENDPOINT="+col.url, "OTEL_BSP_SCHEDULE_DELAY=100")
	dir := filepath.Join(s.home, "demo")
	r := runDemo(t, s, "--dir", dir, "--timeout", "40s")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	spans := col.all() // the children flushed their spans before they exited
	var root *gotSpan
	for i, sp := range spans {
		if sp.attrs["messaging.system"] == "feishu" && sp.kind == tracepb.Span_SPAN_KIND_CONSUMER {
			require.Nil(t, root, "one Feishu message received")
			root = &spans[i]
		}
	}
	require.NotNil(t, root, "spans: %v", spans)
	assert.Equal(t, "researcher", root.agent)
	assert.Empty(t, root.parent, "the Feishu message starts the trace")
	assert.Equal(t, "receive oc_demo_chat", root.name)

	byID := map[string]gotSpan{}
	var trace []gotSpan
	for _, sp := range spans {
		if sp.trace == root.trace {
			trace = append(trace, sp)
			byID[sp.id] = sp
		}
	}
	for _, sp := range trace {
		if sp.id != root.id {
			assert.Contains(t, byID, sp.parent, "the parent of %s (%s) is in the trace", sp.name, sp.agent)
		}
	}
	agents := map[string]bool{}
	for _, sp := range trace {
		agents[sp.agent] = true
	}
	assert.Equal(t, map[string]bool{"researcher": true, "coder": true}, agents, "one trace across both processes")

	// The path from the user's answer back to the Feishu message.
	var answer *gotSpan
	for i, sp := range trace {
		if sp.name == "send oc_demo_chat" && strings.Contains(ancestry(byID, sp), "receive coder") {
			answer = &trace[i]
		}
	}
	require.NotNil(t, answer, "an answer to the user caused by coder's work:\n%s", renderTree(trace))
	assert.Equal(t, []string{
		"researcher: send oc_demo_chat", "researcher: invoke_agent researcher", "researcher: receive researcher",
		"coder: send researcher", "coder: send researcher", "coder: invoke_agent coder", "coder: receive coder",
		"researcher: send coder", "researcher: execute_tool delegate_task", "researcher: invoke_agent researcher",
		"researcher: receive oc_demo_chat",
	}, strings.Split(ancestry(byID, *answer), " < "))
	for _, sp := range trace {
		switch strings.Fields(sp.name)[0] {
		case "invoke_agent":
			assert.Equal(t, "invoke_agent", sp.attrs["gen_ai.operation.name"])
			assert.Equal(t, sp.agent, sp.attrs["gen_ai.agent.name"])
			assert.NotEmpty(t, sp.attrs["gen_ai.conversation.id"])
		case "chat":
			assert.Equal(t, "chat", sp.attrs["gen_ai.operation.name"])
		case "execute_tool":
			assert.NotEmpty(t, sp.attrs["gen_ai.tool.call.id"])
		}
	}
	// switchboard thread shows the trace of the task's messages.
	task, err := filepath.Glob(filepath.Join(dir, "mailboxes", "coder", "archive", "by-task", "*", "*.msg.json"))
	require.NoError(t, err)
	require.NotEmpty(t, task)
	var first map[string]any
	require.NoError(t, json.Unmarshal(mustRead(t, task[0]), &first))
	root2 := []string{"--root", filepath.Join(dir, "mailboxes")}
	lines := decodeLines(t, s.ok(append(root2, "thread", first["id"].(string), "--json")...))
	require.NotEmpty(t, lines)
	for _, l := range lines {
		assert.Equal(t, root.trace, l["trace_id"], "message %v", l["id"])
		assert.Contains(t, l["traceparent"], root.trace)
	}
	table := s.ok(append(root2, "thread", first["id"].(string))...)
	assert.Contains(t, table, fmt.Sprintf("trace %s  (%d of %d messages)\n", root.trace, len(lines), len(lines)))

	if path := os.Getenv("SWITCHBOARD_TRACE_TREE"); path != "" { // docs/observability.md's picture
		require.NoError(t, os.WriteFile(path, []byte(renderTree(trace)), 0o644))
	}
}

// ancestry is "agent: name" of sp and each of its parents, " < " between.
func ancestry(byID map[string]gotSpan, sp gotSpan) string {
	var out []string
	for {
		out = append(out, sp.agent+": "+sp.name)
		p, ok := byID[sp.parent]
		if !ok {
			return strings.Join(out, " < ")
		}
		sp = p
	}
}

// renderTree draws the trace as an indented tree, children in the order
// they were received.
func renderTree(trace []gotSpan) string {
	kids := map[string][]gotSpan{}
	for _, sp := range trace {
		kids[sp.parent] = append(kids[sp.parent], sp)
	}
	var b strings.Builder
	var walk func(sp gotSpan, depth int)
	walk = func(sp gotSpan, depth int) {
		fmt.Fprintf(&b, "%s%s  [%s]\n", strings.Repeat("  ", depth), sp.name, sp.agent)
		for _, k := range kids[sp.id] {
			walk(k, depth+1)
		}
	}
	for _, sp := range trace {
		if sp.parent == "" {
			walk(sp, 0)
		}
	}
	return b.String()
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}
