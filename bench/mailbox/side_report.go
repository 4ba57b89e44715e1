package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// sideResult is one contender's figures over the rounds of a run.
type sideResult struct {
	Side       string    `json:"side"` // "write" or "drain"
	Key        string    `json:"key"`
	Name       string    `json:"name"`
	Durability string    `json:"durability"`
	Kind       string    `json:"kind"` // nanobot, switchboard or raw
	N          int       `json:"n"`
	Seconds    []float64 `json:"seconds"` // one per round
	Median     float64   `json:"median_seconds"`
	PerSec     float64   `json:"msg_per_s"` // N / Median
	// VsNanobot is PerSec over that of nanobot's algorithm on the same
	// side (its own time), VsNanobotProcess over that of its whole
	// process (Python's start included).
	VsNanobot        float64 `json:"vs_nanobot"`
	VsNanobotProcess float64 `json:"vs_nanobot_process"`
	// VsNanobotRounds is VsNanobot within each round: contenders of one
	// round ran minutes apart at most, so on a machine whose load changes
	// these vary less than the medians' ratio.
	VsNanobotRounds []float64 `json:"vs_nanobot_rounds"`
	// RawPeer is the raw contender a switchboard one is compared with, and
	// VsRaw its PerSec over the peer's.
	RawPeer string  `json:"raw_peer,omitempty"`
	VsRaw   float64 `json:"vs_raw,omitempty"`
}

// sideReport gathers the results of a side-by-side run.
type sideReport struct {
	e         *runEnv
	n         int
	fileBytes int // one message file as nanobot writes it
	loadStart string
	results   []*sideResult
}

func newSideReport(e *runEnv, n int) *sideReport {
	return &sideReport{e: e, n: n, loadStart: loadAvg()}
}

// add records what contender c took in one round on side.
func (r *sideReport) add(side string, c contender, took procTimes) {
	if c.kind == kindNanobot {
		proc := c
		proc.key, proc.name = c.key+"-process", c.name+", whole process"
		r.addOne(side, c, took.algo)
		r.addOne(side, proc, took.process)
		return
	}
	r.addOne(side, c, took.process)
}

func (r *sideReport) addOne(side string, c contender, d time.Duration) {
	fmt.Fprintf(r.e.out, "  %s %-26s %8.3f s  %8.0f msg/s\n", side, c.key, d.Seconds(), float64(r.n)/max(d.Seconds(), 1e-9))
	for _, res := range r.results {
		if res.Side == side && res.Key == c.key {
			res.Seconds = append(res.Seconds, d.Seconds())
			return
		}
	}
	r.results = append(r.results, &sideResult{Side: side, Key: c.key, Name: c.name, Durability: c.durability,
		Kind: c.kind, N: r.n, Seconds: []float64{d.Seconds()}, RawPeer: c.peer})
}

// find returns the result of key on side, or nil.
func (r *sideReport) find(side, key string) *sideResult {
	for _, res := range r.results {
		if res.Side == side && res.Key == key {
			return res
		}
	}
	return nil
}

// finish computes medians and ratios, prints the tables and writes the
// JSON file if asked.
func (r *sideReport) finish() error {
	for _, res := range r.results {
		s := slices.Clone(res.Seconds)
		slices.Sort(s)
		res.Median = s[len(s)/2]
		if len(s)%2 == 0 {
			res.Median = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
		if res.Median > 0 {
			res.PerSec = float64(res.N) / res.Median
		}
	}
	for _, res := range r.results {
		nb := r.find(res.Side, "nanobot")
		res.VsNanobot = ratio(res, nb)
		res.VsNanobotRounds = nil
		for i, sec := range res.Seconds {
			if nb != nil && i < len(nb.Seconds) && sec > 0 {
				res.VsNanobotRounds = append(res.VsNanobotRounds, nb.Seconds[i]/sec)
			}
		}
		res.VsNanobotProcess = ratio(res, r.find(res.Side, "nanobot-process"))
		if res.RawPeer != "" {
			res.VsRaw = ratio(res, r.find(res.Side, res.RawPeer))
		}
	}
	for _, side := range []string{"write", "drain"} {
		if err := r.print(side); err != nil {
			return err
		}
	}
	fmt.Fprintf(r.e.out, "  %d messages of %d bytes (nanobot's file) each, %d round(s); times are medians over the rounds;\n",
		r.n, r.fileBytes, r.e.opts.rounds)
	fmt.Fprintln(r.e.out, "  x nanobot: msg/s over that of nanobot's algorithm (its own time, in Python), by round: within each round (min-max);")
	fmt.Fprintln(r.e.out, "  x nanobot proc: over nanobot's whole process (Python's start included);")
	fmt.Fprintln(r.e.out, "  x raw: msg/s over that of the raw peer named; switchboard recv is timed as a whole process (exec to exit),")
	fmt.Fprintln(r.e.out, "  Deliver and the raw operations inside this process; every drain is checked: all N in processed/, none left")
	if r.e.opts.jsonOut == "" {
		return nil
	}
	return r.writeJSON(r.e.opts.jsonOut)
}

// ratio is a's rate over b's, or 0 without b.
func ratio(a, b *sideResult) float64 {
	if b == nil || b.PerSec == 0 {
		return 0
	}
	return a.PerSec / b.PerSec
}

// print prints the table of one side.
func (r *sideReport) print(side string) error {
	title := fmt.Sprintf("%s side by side: %d messages written one after the other into one inbox", side, r.n)
	if side == "drain" {
		title = fmt.Sprintf("drain side by side: %d messages waiting, the same tree copied for each", r.n)
	}
	tw := r.e.table(title, "contender", "durability", "msg/s", "time", "min-max", "x nanobot", "by round", "x nanobot proc", "x raw", "raw peer")
	for _, res := range r.results {
		if res.Side != side {
			continue
		}
		spread := "-"
		if len(res.Seconds) > 1 {
			spread = fmt.Sprintf("%.2f-%.2f s", slices.Min(res.Seconds), slices.Max(res.Seconds))
		}
		byRound := "-"
		if len(res.VsNanobotRounds) > 1 {
			byRound = fmt.Sprintf("%.2f-%.2fx", slices.Min(res.VsNanobotRounds), slices.Max(res.VsNanobotRounds))
		}
		vsRaw, peer := "-", "-"
		if p := r.find(side, res.RawPeer); p != nil {
			vsRaw, peer = times(res.VsRaw), "raw, "+p.Durability
		}
		row(tw, res.Name, res.Durability, fmt.Sprintf("%.0f", res.PerSec), fmt.Sprintf("%.3f s", res.Median), spread,
			times(res.VsNanobot), byRound, times(res.VsNanobotProcess), vsRaw, peer)
	}
	return tw.Flush()
}

// times formats a ratio.
func times(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", x)
}

// sideJSON is the file -json writes.
type sideJSON struct {
	GOOS      string        `json:"goos"`
	GOARCH    string        `json:"goarch"`
	CPUs      int           `json:"cpus"`
	Go        string        `json:"go"`
	Disk      string        `json:"disk"`
	FileBytes int           `json:"file_bytes"`
	Rounds    int           `json:"rounds"`
	LoadStart string        `json:"load_start"`
	LoadEnd   string        `json:"load_end"`
	Results   []*sideResult `json:"results"`
}

// writeJSON writes the results to path.
func (r *sideReport) writeJSON(path string) error {
	data, err := json.MarshalIndent(sideJSON{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(),
		Go: runtime.Version(), Disk: fsType(r.e.work), FileBytes: r.fileBytes, Rounds: r.e.opts.rounds,
		LoadStart: r.loadStart, LoadEnd: loadAvg(), Results: r.results}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write -json file: %w", err)
	}
	fmt.Fprintln(r.e.out, "  results written to", path)
	return nil
}

// loadAvg is the 1, 5 and 15 minute load average, where the system tells
// it, else "".
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}
