package demo

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// How long the demo waits for the agents' figures to settle before it
// prints them, and how often it reads them meanwhile.
const (
	demoSettleLimit = 5 * time.Second
	demoSettleEvery = 50 * time.Millisecond
)

// demoFigures are what one agent's /metrics counted.
type demoFigures struct {
	agent                    string
	sent, received, acked    float64
	turns, inProgress, queue float64
	tokens                   map[string][2]float64 // input, output tokens by the model that answered
}

// scrapeDemoAgent reads the agent's /metrics at addr with the Prometheus
// text parser.
func scrapeDemoAgent(ctx context.Context, agent, addr string) (demoFigures, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return demoFigures{}, err
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return demoFigures{}, fmt.Errorf("scrape %s's metrics: %w", agent, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return demoFigures{}, fmt.Errorf("scrape %s's metrics: %s", agent, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return demoFigures{}, fmt.Errorf("scrape %s's metrics: %w", agent, err)
	}
	f := demoFigures{agent: agent, tokens: map[string][2]float64{},
		sent:       total(fams["switchboard_mailbox_messages_sent_total"]),
		received:   total(fams["switchboard_mailbox_messages_received_total"]),
		acked:      total(fams["switchboard_mailbox_messages_acknowledged_total"]),
		turns:      total(fams["switchboard_agent_turns_total"]),
		inProgress: total(fams["switchboard_agent_turns_in_progress"]),
		queue:      total(fams["switchboard_bus_queue_length"]),
	}
	for _, m := range fams["switchboard_gen_ai_client_token_usage"].GetMetric() {
		model := cmp.Or(label(m, "gen_ai_response_model"), label(m, "gen_ai_request_model"), "?")
		t := f.tokens[model]
		switch label(m, "gen_ai_token_type") {
		case "input":
			t[0] += m.GetHistogram().GetSampleSum()
		case "output":
			t[1] += m.GetHistogram().GetSampleSum()
		}
		f.tokens[model] = t
	}
	return f, nil
}

// total is the sum of a counter's or gauge's samples.
func total(fam *dto.MetricFamily) float64 {
	sum := 0.0
	for _, m := range fam.GetMetric() {
		sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return sum
}

// label is the value of m's label name ("" when it has none).
func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// settled reports whether the two agents' figures are at rest: no turn
// in progress, nothing queued, every message handed over acknowledged,
// and what each sent the other received.
func settled(figs []demoFigures) bool {
	for _, f := range figs {
		if f.inProgress > 0 || f.queue > 0 || f.received != f.acked {
			return false
		}
	}
	return len(figs) == 2 && figs[0].sent == figs[1].received && figs[1].sent == figs[0].received
}

// printMetrics scrapes both agents' /metrics, once their figures settled
// (the last acknowledgements follow the answer), and prints what they
// counted: the mailbox messages, the turns, the tokens by model.
func (d *demoRun) printMetrics(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), demoSettleLimit)
	defer cancel()
	var figs []demoFigures
	for {
		figs = figs[:0]
		for _, ag := range d.agents {
			addr := ag.metricsAddr()
			if addr == "" {
				return fmt.Errorf("--observe: %s logged no metrics address (log: %s)", ag.name, ag.logPath)
			}
			f, err := scrapeDemoAgent(ctx, ag.name, addr)
			if err != nil {
				return fmt.Errorf("--observe: %w", err)
			}
			figs = append(figs, f)
		}
		if settled(figs) {
			break
		}
		select {
		case <-ctx.Done():
			fmt.Fprintf(d.out, "\n(the agents were still busy after %s: these figures may change)", demoSettleLimit)
		case <-time.After(demoSettleEvery):
			continue
		}
		break
	}
	fmt.Fprintln(d.out, "\nwhat the agents' /metrics counted (scraped before the stop; messages are the mailbox's, tokens by the model that answered):")
	rows := [][]string{{"agent", "sent", "received", "acknowledged", "turns", "model", "input tokens", "output tokens"}}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, f := range figs {
		row := []string{f.agent, num(f.sent), num(f.received), num(f.acked), num(f.turns), "-", "0", "0"}
		models := make([]string, 0, len(f.tokens))
		for m := range f.tokens {
			models = append(models, m)
		}
		slices.Sort(models)
		for i, m := range models {
			if i > 0 {
				row = []string{"", "", "", "", "", "", "", ""}
			}
			row[5], row[6], row[7] = m, num(f.tokens[m][0]), num(f.tokens[m][1])
			rows = append(rows, row)
		}
		if len(models) == 0 {
			rows = append(rows, row)
		}
	}
	printColumns(d.out, rows)
	fmt.Fprintln(d.out)
	return nil
}

// printColumns prints rows as aligned columns, indented by two spaces.
func printColumns(w io.Writer, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, "  "+strings.Join(r, "\t"))
	}
	_ = tw.Flush()
}
