package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
)

// runEnv is what every mode works with.
type runEnv struct {
	opts options
	work string // the temporary folder of this run
	out  io.Writer
}

// tree makes a fresh folder for one run under the work folder. Trees are
// removed only with the work folder, at the end: on a file system without
// a journal, ext4 will not reuse an inode deleted in the last minutes, and
// each deleted inode makes every later file creation in its block group
// slower, so deleting a run's files would slow down the runs after it.
func (e *runEnv) tree(name string) (string, error) {
	dir := filepath.Join(e.work, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("make %s: %w", dir, err)
	}
	return dir, nil
}

// profile returns the receiver's CPU profile file for a run, or "".
func (e *runEnv) profile(run string) string {
	if e.opts.cpuprofile == "" {
		return ""
	}
	return e.opts.cpuprofile + "." + run
}

// printMachine prints what the figures were measured on.
func (e *runEnv) printMachine() {
	host, _ := os.Hostname()
	fmt.Fprintf(e.out, "machine: %s/%s, %d CPUs, %s, host %s\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), host)
	fmt.Fprintf(e.out, "disk:    %s on %s (%s)\n", e.work, fsType(e.work), device(e.work))
	fmt.Fprintf(e.out, "message: %d bytes of text; receiver: real mailbox channel, pollInterval 5s (fsnotify carries it)\n",
		e.opts.size)
	e.printLoad("start")
}

// printLoad prints the load average, where the system tells it: figures
// taken while other programs compete for the CPUs or the disk are noisy.
func (e *runEnv) printLoad(when string) {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		fmt.Fprintf(e.out, "load at %s: %s (1, 5, 15 min)\n", when, strings.Join(f[:3], " "))
	}
}

// device names the file system holding dir as df sees it, if df is there.
func device(dir string) string {
	out, err := exec.Command("df", "-P", dir).Output()
	if err != nil {
		return "df unavailable"
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if f := strings.Fields(lines[len(lines)-1]); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// table starts an aligned table with a title.
func (e *runEnv) table(title string, header ...string) *tabwriter.Writer {
	fmt.Fprintf(e.out, "\n== %s\n", title)
	tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, header...)
	return tw
}

// row writes one table row.
func row(tw *tabwriter.Writer, cells ...string) {
	fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
}

// onOff names a durability setting.
func onOff(fsync bool) string {
	if fsync {
		return "fsync on"
	}
	return "fsync off"
}
