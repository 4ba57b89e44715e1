package otlpcollector

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Trace is the spans of one trace id.
type Trace struct {
	// ID is the trace id (32 hex digits).
	ID string
	// Spans are the trace's spans, by start time.
	Spans []Span
}

// Traces groups spans by trace, each trace's spans by start time, and the
// traces by the start of their first span.
func Traces(spans []Span) []Trace {
	index := map[string]int{}
	var out []Trace
	for _, sp := range spans {
		i, ok := index[sp.TraceID]
		if !ok {
			i = len(out)
			index[sp.TraceID] = i
			out = append(out, Trace{ID: sp.TraceID})
		}
		out[i].Spans = append(out[i].Spans, sp)
	}
	for i := range out {
		slices.SortStableFunc(out[i].Spans, byStart)
	}
	slices.SortStableFunc(out, func(a, b Trace) int { return a.Start().Compare(b.Start()) })
	return out
}

func byStart(a, b Span) int { return cmp.Or(a.Start.Compare(b.Start), strings.Compare(a.Name, b.Name)) }

// Start is when the trace's first span began.
func (t Trace) Start() time.Time {
	if len(t.Spans) == 0 {
		return time.Time{}
	}
	return t.Spans[0].Start
}

// End is when the trace's last span ended.
func (t Trace) End() time.Time {
	var end time.Time
	for _, sp := range t.Spans {
		if sp.End.After(end) {
			end = sp.End
		}
	}
	return end
}

// Agents are the processes (Span.Who) the trace's spans come from, in
// the order they joined it.
func (t Trace) Agents() []string {
	var out []string
	for _, sp := range t.Spans {
		if w := sp.Who(); w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// Span returns the span of the trace with id.
func (t Trace) Span(id string) (Span, bool) {
	for _, sp := range t.Spans {
		if sp.SpanID == id {
			return sp, true
		}
	}
	return Span{}, false
}

// Ancestry returns sp and its parents in the trace, sp first, up to the
// first whose parent is not in the trace.
func (t Trace) Ancestry(sp Span) []Span {
	out := []Span{sp}
	for len(out) <= len(t.Spans) {
		p, ok := t.Span(out[len(out)-1].ParentID)
		if !ok {
			break
		}
		out = append(out, p)
	}
	return out
}

// Render writes the trace as a tree: a header with the trace id, the
// number of spans, the processes and how long it took, then one line per
// span, children under their parent by start time, with when it began
// (since the trace's start), how long it took, its name and its process.
// A span whose parent was not received is drawn as a root, and says so.
func (t Trace) Render(w io.Writer) error {
	kids := map[string][]Span{}
	var roots []Span
	for _, sp := range t.Spans {
		if _, ok := t.Span(sp.ParentID); ok && sp.ParentID != sp.SpanID {
			kids[sp.ParentID] = append(kids[sp.ParentID], sp)
		} else {
			roots = append(roots, sp)
		}
	}
	type row struct {
		sp    Span
		depth int
	}
	var rows []row
	seen := map[string]bool{}
	var walk func(Span, int)
	walk = func(sp Span, depth int) {
		if seen[sp.SpanID] { // a span id sent twice: drawn once
			return
		}
		seen[sp.SpanID] = true
		rows = append(rows, row{sp, depth})
		for _, k := range kids[sp.SpanID] {
			walk(k, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	nameWidth := len("span")
	for _, r := range rows {
		nameWidth = max(nameWidth, 2*r.depth+len([]rune(r.sp.Name)))
	}
	nameWidth = min(nameWidth, 64)
	var b strings.Builder
	fmt.Fprintf(&b, "trace %s  (%d spans; %s; %s)\n", t.ID, len(t.Spans), strings.Join(t.Agents(), ", "),
		duration(t.End().Sub(t.Start())))
	fmt.Fprintf(&b, "  %8s  %8s  %s  %s\n", "start", "took", pad("span", nameWidth), "process")
	for _, r := range rows {
		name := strings.Repeat("  ", r.depth) + r.sp.Name
		line := fmt.Sprintf("  %8s  %8s  %s  %s", offset(r.sp.Start.Sub(t.Start())), duration(r.sp.Duration()),
			pad(name, nameWidth), r.sp.Who())
		if r.sp.Error != "" {
			line += "  error: " + oneLine(r.sp.Error)
		}
		if r.sp.ParentID != "" && r.depth == 0 {
			line += "  (parent " + r.sp.ParentID + " not received)"
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String is the trace as Render draws it.
func (t Trace) String() string {
	var b strings.Builder
	_ = t.Render(&b)
	return b.String()
}

func pad(s string, n int) string { return s + strings.Repeat(" ", max(0, n-len([]rune(s)))) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// offset writes a time since the trace's start: 0.123s.
func offset(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }

// duration writes how long a span took, to three significant figures or
// so: 0.42ms, 12.3ms, 1.204s.
func duration(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d < 0:
		return "?"
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", ms)
	case d < time.Second:
		return fmt.Sprintf("%.1fms", ms)
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}
