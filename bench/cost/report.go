package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// report prints each flow's figures side by side, then, with -v, every
// call and the chat.
func report(w io.Writer, o options, results []result) {
	fmt.Fprintf(w, "One delegated task: %q, delegating agent's AGENTS.md %d bytes; fake provider (≈4 bytes a token; cache: OpenAI's rule)\n\n",
		request, o.promptBytes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "flow\tcalls\ttarget\tinput tokens\tcached\toutput tokens\tcache hits\tinput per call\t")
	for _, r := range results {
		var in, cached, out int64
		hits := 0
		per := make([]string, len(r.calls))
		for i, c := range r.calls {
			in, cached, out = in+c.InputTokens, cached+c.CachedTokens, out+c.OutputTokens
			if c.CachedTokens > 0 {
				hits++
			}
			per[i] = fmt.Sprint(c.InputTokens)
		}
		target := "-"
		if r.target > 0 {
			target = fmt.Sprintf("≤ %d", r.target)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%d\t%s\t\n", r.name, len(r.calls), target, in, cached, out, hits,
			strings.Join(per, " + "))
	}
	tw.Flush()
	for _, r := range results {
		fmt.Fprintf(w, "\n%s:\n", r.name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tagent\tfor\tmessages\tinput\tcached\toutput")
		for i, c := range r.calls {
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%d\t%d\t%d\n", i+1, c.Agent, c.Purpose, c.Messages, c.InputTokens, c.CachedTokens, c.OutputTokens)
		}
		tw.Flush()
		if o.verbose {
			for _, line := range r.chat {
				fmt.Fprintf(w, "  user reads: %q\n", line)
			}
		}
	}
}
