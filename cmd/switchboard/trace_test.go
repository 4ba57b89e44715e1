package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/otlpcollector"
)

// TestDemoOneTrace runs the two-process demo exporting spans over OTLP to
// a collector of the test's own: the Feishu message, researcher's turn,
// the task to coder, coder's turn and the answer back to the user are one
// trace, every span's parent is in it, and it spans both processes.
func TestDemoOneTrace(t *testing.T) {
	t.Parallel()
	col := newCollector(t)
	s := newSandbox(t)
	s.environ = append(s.environ, "OTEL_EXPORTER_OTLP_ENDPOINT="+col.Endpoint(), "OTEL_BSP_SCHEDULE_DELAY=100")
	dir := filepath.Join(s.home, "demo")
	r := runDemo(t, s, "--dir", dir, "--timeout", "40s")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	spans := col.Spans() // the children flushed their spans before they exited
	var root *otlpcollector.Span
	for i, sp := range spans {
		if sp.Attrs["messaging.system"] == "feishu" && sp.Kind == "consumer" {
			require.Nil(t, root, "one Feishu message received")
			root = &spans[i]
		}
	}
	require.NotNil(t, root, "spans: %v", spans)
	assert.Equal(t, "researcher", root.Agent)
	assert.Empty(t, root.ParentID, "the Feishu message starts the trace")
	assert.Equal(t, "receive oc_demo_chat", root.Name)

	var trace otlpcollector.Trace
	for _, tr := range otlpcollector.Traces(spans) {
		if tr.ID == root.TraceID {
			trace = tr
		}
	}
	for _, sp := range trace.Spans {
		if sp.SpanID != root.SpanID {
			_, ok := trace.Span(sp.ParentID)
			assert.True(t, ok, "the parent of %s (%s) is in the trace", sp.Name, sp.Agent)
		}
	}
	assert.ElementsMatch(t, []string{"researcher", "coder"}, trace.Agents(), "one trace across both processes")

	// The path from the user's answer back to the Feishu message.
	var answer []string
	for _, sp := range trace.Spans {
		if path := ancestry(trace, sp); sp.Name == "send oc_demo_chat" && slices.Contains(path, "coder: receive coder") {
			answer = path
		}
	}
	require.NotNil(t, answer, "an answer to the user caused by coder's work:\n%s", trace)
	assert.Equal(t, []string{
		"researcher: send oc_demo_chat", "researcher: invoke_agent researcher", "researcher: receive researcher",
		"coder: send researcher", "coder: send researcher", "coder: invoke_agent coder", "coder: receive coder",
		"researcher: send coder", "researcher: execute_tool delegate_task", "researcher: invoke_agent researcher",
		"researcher: receive oc_demo_chat",
	}, answer)
	for _, sp := range trace.Spans {
		switch strings.Fields(sp.Name)[0] {
		case "invoke_agent":
			assert.Equal(t, "invoke_agent", sp.Attrs["gen_ai.operation.name"])
			assert.Equal(t, sp.Agent, sp.Attrs["gen_ai.agent.name"])
			assert.NotEmpty(t, sp.Attrs["gen_ai.conversation.id"])
		case "chat":
			assert.Equal(t, "chat", sp.Attrs["gen_ai.operation.name"])
		case "execute_tool":
			assert.NotEmpty(t, sp.Attrs["gen_ai.tool.call.id"])
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
		assert.Equal(t, root.TraceID, l["trace_id"], "message %v", l["id"])
		assert.Contains(t, l["traceparent"], root.TraceID)
	}
	table := s.ok(append(root2, "thread", first["id"].(string))...)
	assert.Contains(t, table, fmt.Sprintf("trace %s  (%d of %d messages)\n", root.TraceID, len(lines), len(lines)))
}

// newCollector starts an OTLP/HTTP receiver on 127.0.0.1 for the test.
func newCollector(t *testing.T) *otlpcollector.Collector {
	t.Helper()
	col, err := otlpcollector.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = col.Close() })
	return col
}

// ancestry is "agent: name" of sp and each of its parents in the trace.
func ancestry(trace otlpcollector.Trace, sp otlpcollector.Span) []string {
	var out []string
	for _, a := range trace.Ancestry(sp) {
		out = append(out, a.Agent+": "+a.Name)
	}
	return out
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// TestRecvContinuesTrace sends a message from within a caller's trace
// (TRACEPARENT) with tracing on: send's span is a child of the caller's,
// the message carries its context, and recv's receive span is a child of
// send's, in another process.
func TestRecvContinuesTrace(t *testing.T) {
	t.Parallel()
	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	col := newCollector(t)
	s := newSandbox(t)
	s.environ = append(s.environ, "OTEL_EXPORTER_OTLP_ENDPOINT="+col.Endpoint())
	recv := s.start("recv", "worker", "--count", "1")
	recv.awaitStderr("listening as worker")
	s.environ = append(s.environ, "TRACEPARENT=00-"+callerTrace+"-"+callerSpan+"-01")
	id := s.sendID("--from", "lead", "--to", "worker", "--text", "hello")
	assert.Contains(t, recv.next(recv.stdout, "recv output"), "lead (unverified) hello", "lead never ran: it has no key to sign with")
	require.Equal(t, 0, recv.wait(), "stderr:\n%s", recv.stderrSoFar())

	traces := otlpcollector.Traces(col.Spans()) // both processes flushed their spans before they exited
	require.Len(t, traces, 1, "one trace: %v", col.Spans())
	tr := traces[0]
	assert.Equal(t, callerTrace, tr.ID)
	require.Len(t, tr.Spans, 2, "%s", tr)
	sent, got := tr.Spans[0], tr.Spans[1]
	assert.Equal(t, "send worker", sent.Name)
	assert.Equal(t, "lead", sent.Agent)
	assert.Equal(t, callerSpan, sent.ParentID, "send continues the caller's trace")
	assert.Equal(t, id, sent.Attrs["messaging.message.id"])
	assert.Equal(t, "receive worker", got.Name)
	assert.Equal(t, "worker", got.Agent)
	assert.Equal(t, sent.SpanID, got.ParentID, "recv's receive span is a child of send's")
	assert.Equal(t, id, got.Attrs["messaging.message.id"])

	processed := s.msgFiles("worker", "processed")
	require.Len(t, processed, 1)
	var msg map[string]any
	require.NoError(t, json.Unmarshal(mustRead(t, filepath.Join(s.root, "worker", "processed", processed[0])), &msg))
	assert.Equal(t, "00-"+callerTrace+"-"+sent.SpanID+"-01", msg["traceparent"])
}
