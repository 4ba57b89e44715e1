package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoObserve runs demo --observe: it says where to look, names the
// conversation's trace, and at the end draws it as one tree across both
// agent processes, from the spans its own receiver got. OTEL_ variables
// that would send the spans elsewhere, or nowhere, are not passed on.
func TestDemoObserve(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.environ = append(s.environ, "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_SDK_DISABLED=true")
	dir := filepath.Join(s.home, "demo")
	r := runDemo(t, s, "--observe", "--dir", dir, "--timeout", "40s")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Empty(t, r.stderr)
	root := filepath.Join(dir, "mailboxes")
	for _, want := range []string{
		`\nwhere to look \(--observe\):\n  traces +http://127\.0\.0\.1:\d+/v1/traces  \(OTLP/HTTP receiver in this process`,
		`\n  researcher metrics  http://127\.0\.0\.1:\d+/metrics  http://127\.0\.0\.1:\d+/healthz  http://127\.0\.0\.1:\d+/readyz\n`,
		`\n  coder metrics       http://127\.0\.0\.1:\d+/metrics  `,
		`\n  researcher log      ` + regexp.QuoteMeta(filepath.Join(dir, "researcher.log")) + `\n`,
		`\n  mailbox +switchboard --root ` + regexp.QuoteMeta(root) + ` agents`,
	} {
		assert.Regexp(t, want, r.stdout)
	}
	traceID, msgID := observedTrace(t, r.stdout)
	assert.Contains(t, r.stdout, "  its mailbox messages: switchboard --root "+root+" thread "+msgID+"\n")
	assert.Contains(t, s.ok("--root", root, "thread", msgID), "trace "+traceID+"  (3 of 3 messages)\n",
		"the command the demo prints shows the trace")
	conf, err := os.ReadFile(filepath.Join(dir, "coder.json"))
	require.NoError(t, err)
	assert.Regexp(t, `"observability": \{\s+"metrics": \{\s+"listen": "127\.0\.0\.1:0"\s+\},\s+"tracing": \{\s+"enabled": true,\s+"endpoint": "http://127\.0\.0\.1:\d+"`, string(conf))
	assert.NotContains(t, r.stdout, "removed")

	rows := demoSummary(t, r.stdout)
	checkDemoSummary(t, rows)
	checkDemoTokens(t, s, root, rows)
	assert.Less(t, strings.Index(r.stdout, "/metrics counted"), strings.Index(r.stdout, "\nstopped researcher and coder"),
		"scraped while the agents ran")

	// Every line about a message names its trace: the turns of both
	// processes are in the conversation's trace.
	for _, agent := range []string{"researcher", "coder"} {
		log, err := os.ReadFile(filepath.Join(dir, agent+".log"))
		require.NoError(t, err)
		turns := regexp.MustCompile(`(?m)^.* msg=turn id=\S+ thread=\S+ trace=([0-9a-f]{32}) .*$`).FindAllStringSubmatch(string(log), -1)
		require.NotEmpty(t, turns, "%s's turns name their trace:\n%s", agent, log)
		for _, m := range turns {
			assert.Equal(t, traceID, m[1], m[0])
		}
	}
}

// TestDemoObserveNATS is demo --observe on the nats-server the demo
// embeds.
func TestDemoObserveNATS(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	r := runDemo(t, s, "--observe", "--backend", "nats", "--timeout", "40s")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	_, msgID := observedTrace(t, r.stdout)
	checkDemoSummary(t, demoSummary(t, r.stdout))
	assert.Regexp(t, `\n  its mailbox messages: switchboard --config \S+/researcher\.json thread `+msgID+
		`  \(while the demo's nats-server runs: with --keep, before Ctrl-C\)\n`, r.stdout)
	kept := regexp.MustCompile(`\nkept (\S+) \(remove it when done\)\n`).FindStringSubmatch(r.stdout)
	require.NotNil(t, kept, "the temporary folder is kept, to look at:\n%s", r.stdout)
	assert.FileExists(t, filepath.Join(kept[1], "researcher.log"))
}

// observedTrace checks the trace demo --observe printed: the
// conversation's trace id and one of its mailbox messages, then one tree
// of that trace spanning both agents, from the Feishu message received
// to the answer sent to the chat. It returns the trace and message ids.
func observedTrace(t *testing.T, stdout string) (traceID, msgID string) {
	t.Helper()
	m := regexp.MustCompile(`\nthe conversation is trace ([0-9a-f]{32}) \(switchboard (?:--root|--config) \S+ thread (\S+) shows it\)\n`).
		FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	traceID, msgID = m[1], m[2]
	assert.Regexp(t, `\nthe demo's receiver got \d+ spans in 1 trace `, stdout, "every span of the demo is in the conversation's trace")
	_, tree, ok := strings.Cut(stdout, "\n  trace "+traceID+"  (")
	require.True(t, ok, "the tree of the conversation's trace:\n%s", stdout)
	tree, _, _ = strings.Cut(tree, "\n\n")
	assert.Regexp(t, `^\d+ spans; researcher, coder; \d`, tree, "one trace across both processes")
	lines := strings.Split(tree, "\n")
	require.Greater(t, len(lines), 3)
	assert.Regexp(t, `^ +start +took +span +process$`, lines[1])
	assert.Regexp(t, `^ +0\.000s +[\d.]+m?s  receive oc_demo_chat +researcher$`, lines[2], "the Feishu message is the root")
	for _, want := range []string{
		`^ +\d\.\d{3}s +[\d.]+m?s {6}execute_tool delegate_task +researcher$`,
		`^ +\d\.\d{3}s +[\d.]+m?s {10}receive coder +coder$`,
		`^ +\d\.\d{3}s +[\d.]+m?s {12}invoke_agent coder +coder$`,
		`^ +\d\.\d{3}s +[\d.]+m?s +send oc_demo_chat +researcher$`,
	} {
		found := false
		for _, l := range lines {
			found = found || regexp.MustCompile(want).MatchString(l)
		}
		assert.True(t, found, "a line %s in\n%s", want, tree)
	}
	return traceID, msgID
}
