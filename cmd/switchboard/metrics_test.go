package main_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

var metricsAttr = regexp.MustCompile(`\bmetrics=http://(\S+)/metrics`)

// scrape GETs /metrics of the process serving at addr and parses it with
// the Prometheus text parser.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p := expfmt.NewTextParser(pmodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fams
}

// sample returns the value of the counter or gauge name whose labels
// include want, 0 when there is none.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	total := 0.0
next:
	for _, m := range fams[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if v, ok := want[l.GetName()]; ok && v != l.GetValue() {
				continue next
			}
		}
		total += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
	}
	return total
}

// counts are the counters of one process that the exchange fixes.
type counts map[string]float64

func (c counts) of(fams map[string]*dto.MetricFamily, agent string) counts {
	out := counts{}
	for key := range c {
		name, labels, _ := strings.Cut(key, "|")
		want := map[string]string{"agent": agent}
		for _, kv := range strings.Split(labels, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				want[k] = v
			}
		}
		out[key] = sample(fams, name, want)
	}
	return out
}

func probe(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// TestDemoMetrics runs the demo's two agent processes with metrics on,
// has the Feishu user's request delegated and answered, and checks that
// what each process's /metrics counts is what was sent; /readyz fails
// while the mailbox folder is gone and recovers when it is back.
func TestDemoMetrics(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	researcher := s.start("--config", s.writeConfig("researcher.json", researcherConfig), "run", "--metrics-listen", "127.0.0.1:0")
	coder := s.start("--config", s.writeConfig("coder.json", strings.Replace(coderConfig, `"channels"`,
		`"observability": {"metrics": {"listen": "127.0.0.1:0"}}, "channels"`, 1)), "run")
	rAddr := metricsAttr.FindStringSubmatch(researcher.awaitLine("metrics listening"))[1]
	webhook := webhookAttr.FindStringSubmatch(researcher.awaitLine("host running"))[1]
	cAddr := metricsAttr.FindStringSubmatch(coder.awaitLine("metrics listening"))[1]
	coder.awaitStderr("host running")
	for _, addr := range []string{rAddr, cAddr} {
		code, body := probe(t, addr, "/readyz")
		require.Equal(t, http.StatusOK, code, body)
		code, body = probe(t, addr, "/healthz")
		require.Equal(t, http.StatusOK, code, body)
	}

	resp, err := http.Post(webhook, "application/json", bytes.NewReader(feishuMessage("ev_1", "ou_alice", "oc_alice", "ask coder to sort 5 3 9 1")))
	require.NoError(t, err)
	resp.Body.Close()
	awaitChatReply(t, webhook, "oc_alice", "finished")

	wantResearcher, wantCoder := demoCounts()
	awaitCounts(t, rAddr, cAddr, wantResearcher, wantCoder)

	// The store goes away: both say they are not ready, and why.
	gone := s.root + ".gone"
	require.NoError(t, os.Rename(s.root, gone))
	for _, addr := range []string{rAddr, cAddr} {
		code, body := probe(t, addr, "/readyz")
		assert.Equal(t, http.StatusServiceUnavailable, code)
		assert.Contains(t, body, "store: mailbox root:")
		code, _ = probe(t, addr, "/healthz")
		assert.Equal(t, http.StatusOK, code, "alive all the same")
	}
	require.NoError(t, os.Rename(gone, s.root))
	for _, addr := range []string{rAddr, cAddr} {
		code, body := probe(t, addr, "/readyz")
		assert.Equal(t, http.StatusOK, code, body)
	}

	for _, p := range []*proc{researcher, coder} {
		p.signal(sigterm)
		assert.Equal(t, 0, p.wait(), "stderr:\n%s", p.stderrSoFar())
	}
}

// demoCounts are what the demo's exchange (the Feishu user's request
// delegated to coder and answered) leaves in each process's /metrics.
func demoCounts() (researcher, coder counts) {
	// researcher: the user's message and the task's result answered (its
	// acceptance is told from a template, without a turn), one task sent,
	// one delegate_task call; coder: the task received, accepted and
	// completed.
	researcher = counts{
		"switchboard_mailbox_messages_sent_total|type=task":              1,
		"switchboard_mailbox_messages_received_total|type=task_update":   2,
		"switchboard_mailbox_messages_acknowledged_total|":               2,
		"switchboard_mailbox_delivery_latency_seconds|type=task_update":  2,
		"switchboard_agent_turns_total|outcome=ok":                       2,
		"switchboard_tool_calls_total|tool=delegate_task,outcome=ok":     1,
		"switchboard_mailbox_messages_set_aside_total|":                  0,
		"switchboard_mailbox_inbox_depth|":                               0,
		"switchboard_tasks|side=delegated":                               0,
		"switchboard_gen_ai_client_token_usage|gen_ai_token_type=output": 2, // one call a turn: the delegation ends its turn
	}
	coder = counts{
		"switchboard_mailbox_messages_received_total|type=task":        1,
		"switchboard_mailbox_messages_sent_total|type=task_update":     2,
		"switchboard_mailbox_messages_acknowledged_total|":             1,
		"switchboard_mailbox_delivery_latency_seconds|type=task":       1,
		"switchboard_agent_turns_total|outcome=ok":                     1,
		"switchboard_mailbox_messages_sent_total|type=task":            0,
		"switchboard_mailbox_messages_received_total|type=task_update": 0,
		"switchboard_tasks|side=working":                               0,
		"switchboard_mailbox_messages_redelivered_total|":              0,
		"switchboard_gen_ai_client_requests_total|outcome=ok":          1, // the scripted provider judges a task by its own rule
	}
	return researcher, coder
}

// awaitCounts scrapes the two processes until their counters are the
// wanted ones (the last acknowledgements follow the answers) or the wait
// limit passes, and checks them.
func awaitCounts(t *testing.T, rAddr, cAddr string, wantResearcher, wantCoder counts) {
	t.Helper()
	deadline := time.Now().Add(testkit.WaitLimit)
	var gotR, gotC counts
	for {
		gotR, gotC = wantResearcher.of(scrape(t, rAddr), "researcher"), wantCoder.of(scrape(t, cAddr), "coder")
		if (assert.ObjectsAreEqual(wantResearcher, gotR) && assert.ObjectsAreEqual(wantCoder, gotC)) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // a poll bounded by the deadline: the counters have no event to wait on
	}
	assert.Equal(t, wantResearcher, gotR, "researcher")
	assert.Equal(t, wantCoder, gotC, "coder")
}
