package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/switchboard-dev/switchboard/internal/fakellm"
)

// report prints each flow's figures per task side by side, then every
// call, and with -v the chat.
func report(w io.Writer, o options, results []result) {
	fmt.Fprintf(w, "Delegated tasks in one chat (%q, then the next): the delegating agent's AGENTS.md %d bytes;\n"+
		"fake provider: ≈%d bytes a token, prompt cache by OpenAI's rule (from %d tokens, in steps of %d)\n\n",
		requests[0].text, o.promptBytes, fakellm.BytesPerToken, fakellm.MinCachedTokens, fakellm.CacheStep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "flow\ttask\tcalls\ttarget\tinput tokens\tcached\toutput tokens\tcache hits\tinput per call\t")
	for _, r := range results {
		target := "-"
		if r.target > 0 {
			target = fmt.Sprintf("≤ %d", r.target)
		}
		for i, calls := range r.tasks {
			var in, cached, out int64
			hits := 0
			per := make([]string, len(calls))
			for j, c := range calls {
				in, cached, out = in+c.InputTokens, cached+c.CachedTokens, out+c.OutputTokens
				if c.CachedTokens > 0 {
					hits++
				}
				per[j] = fmt.Sprint(c.InputTokens)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%s\t\n", r.name, i+1, len(calls), target, in, cached, out, hits,
				strings.Join(per, " + "))
		}
	}
	tw.Flush()
	for _, r := range results {
		fmt.Fprintf(w, "\n%s:\n", r.name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  task\t#\tagent\tfor\tmessages\tinput\tcached\toutput")
		for i, calls := range r.tasks {
			for j, c := range calls {
				fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%d\t%d\t%d\t%d\n", i+1, j+1, c.Agent, c.Purpose, c.Messages,
					c.InputTokens, c.CachedTokens, c.OutputTokens)
			}
		}
		tw.Flush()
		if o.verbose {
			for _, line := range r.chat {
				fmt.Fprintf(w, "  user reads: %q\n", line)
			}
		}
	}
}
