package main_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lookMetrics is a "where to look" line of demo --observe that names an
// agent's metrics listener.
var lookMetrics = regexp.MustCompile(`^  (researcher|coder) metrics +http://(\S+)/metrics  http://(\S+)/healthz  http://(\S+)/readyz$`)

// summaryRow is one agent's row of the figures demo --observe prints
// before it stops the agents.
type summaryRow struct {
	sent, received, acknowledged, turns int
	model                               string
	input, output                       int
}

// demoSummary reads the table of what the agents' /metrics counted from
// the demo's output, by agent (its first model's row).
func demoSummary(t *testing.T, stdout string) map[string]summaryRow {
	t.Helper()
	_, table, ok := strings.Cut(stdout, "\nwhat the agents' /metrics counted (scraped before the stop; messages are the mailbox's, tokens by the model that answered):\n")
	require.True(t, ok, "the figures are printed:\n%s", stdout)
	table, _, _ = strings.Cut(table, "\n\n")
	lines := strings.Split(table, "\n")
	require.Regexp(t, `^  agent +sent +received +acknowledged +turns +model +input tokens +output tokens$`, lines[0])
	out := map[string]summaryRow{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != 8 {
			continue // a further model of the agent above
		}
		n := make([]int, 0, 6)
		for _, s := range append(f[1:5:5], f[6:]...) {
			v, err := strconv.Atoi(s)
			require.NoError(t, err, l)
			n = append(n, v)
		}
		out[f[0]] = summaryRow{sent: n[0], received: n[1], acknowledged: n[2], turns: n[3], model: f[5], input: n[4], output: n[5]}
	}
	return out
}

// The demo's exchange, as the table shows it: researcher sends the task
// and answers the user's message and the task's result (coder's
// acceptance is told without a turn); coder answers the task with two
// updates in one turn.
func checkDemoSummary(t *testing.T, rows map[string]summaryRow) {
	t.Helper()
	r, c := rows["researcher"], rows["coder"]
	assert.Equal(t, [4]int{1, 2, 2, 2}, [4]int{r.sent, r.received, r.acknowledged, r.turns}, "researcher")
	assert.Equal(t, [4]int{2, 1, 1, 1}, [4]int{c.sent, c.received, c.acknowledged, c.turns}, "coder")
	for _, row := range []summaryRow{r, c} {
		assert.Equal(t, "scripted", row.model)
		assert.Positive(t, row.input)
		assert.Positive(t, row.output)
	}
}

// TestDemoObserveServesMetrics runs demo --observe --keep: while the
// agents keep running, the test scrapes the /metrics the demo points at
// in both processes, parses them with the Prometheus text parser and
// checks that they count what was sent; /readyz fails while the mailbox
// folder is gone. At Ctrl-C the demo prints the same figures.
func TestDemoObserveServesMetrics(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	dir := filepath.Join(s.home, "demo")
	demo := startDemo(t, s, "--observe", "--keep", "--dir", dir, "--timeout", "40s")
	addrs := map[string]string{}
	for len(addrs) < 2 {
		line := demo.awaitStdout(" metrics ")
		m := lookMetrics.FindStringSubmatch(line)
		require.NotNil(t, m, line)
		assert.Equal(t, []string{m[2], m[2]}, m[3:], "one listener serves the three paths")
		addrs[m[1]] = m[2]
	}
	rAddr, cAddr := addrs["researcher"], addrs["coder"]
	demo.awaitStdout("both agents keep running; Ctrl-C stops them")

	wantR, wantC := demoCounts()
	awaitCounts(t, rAddr, cAddr, wantR, wantC)
	tokens := map[string][2]float64{}
	for agent, addr := range addrs {
		fams := scrape(t, addr)
		for _, name := range []string{"switchboard_limits_tripped_total", "switchboard_breakers_opened_total",
			"switchboard_budget_refusals_total", "switchboard_approvals_requested_total"} {
			assert.Contains(t, fams, name, "the guard rails' metrics, at 0")
			assert.Zero(t, sample(fams, name, map[string]string{"agent": agent}), name)
		}
		var in, out float64
		for _, m := range fams["switchboard_gen_ai_client_token_usage"].GetMetric() {
			for _, l := range m.GetLabel() {
				switch {
				case l.GetName() != "gen_ai_token_type":
				case l.GetValue() == "input":
					in += m.GetHistogram().GetSampleSum()
				case l.GetValue() == "output":
					out += m.GetHistogram().GetSampleSum()
				}
			}
		}
		tokens[agent] = [2]float64{in, out}
	}

	root := filepath.Join(dir, "mailboxes")
	require.NoError(t, os.Rename(root, root+".gone"))
	for _, addr := range addrs {
		code, body := probe(t, addr, "/readyz")
		assert.Equal(t, http.StatusServiceUnavailable, code)
		assert.Contains(t, body, "store: mailbox root:")
	}
	require.NoError(t, os.Rename(root+".gone", root))
	for _, addr := range addrs {
		code, body := probe(t, addr, "/readyz")
		assert.Equal(t, http.StatusOK, code, body)
	}

	demo.signal(os.Interrupt)
	require.Equal(t, 0, demo.wait(), "stderr:\n%s", demo.stderrSoFar())
	rows := demoSummary(t, "\n"+strings.Join(demo.rest(demo.stdout), "\n")+"\n")
	checkDemoSummary(t, rows)
	for agent, tk := range tokens {
		assert.Equal(t, [2]float64{float64(rows[agent].input), float64(rows[agent].output)}, tk,
			"%s: the printed tokens are the scraped ones", agent)
	}
}

// checkDemoTokens checks the tokens the demo printed against those of
// the audit log (`switchboard stats --json`): the metrics and the log
// count the same provider calls.
func checkDemoTokens(t *testing.T, s *sandbox, root string, rows map[string]summaryRow) {
	t.Helper()
	out := s.ok("--root", root, "stats", "--json")
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var st struct {
			Agent  string `json:"agent"`
			In     int    `json:"input_tokens"`
			Out    int    `json:"output_tokens"`
			Turns  int    `json:"turns"`
			Status string `json:"status"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &st), line)
		row, ok := rows[st.Agent]
		if !ok {
			continue
		}
		seen++
		assert.Equal(t, [3]int{row.turns, row.input, row.output}, [3]int{st.Turns, st.In, st.Out}, "%s: metrics and audit log agree", st.Agent)
	}
	assert.Equal(t, 2, seen, out)
}
