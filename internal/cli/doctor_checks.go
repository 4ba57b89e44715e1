package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/fileinfo"
)

// stagingMaxAge is how old a staging file must be to count as the orphan
// of a crashed writer (writers hold one for milliseconds).
const stagingMaxAge = time.Minute

// Names in the tree (see package fsstore).
const (
	registryFile = "_registry.json"
	reasonSuffix = ".reason.json"
	tmpSuffix    = ".tmp"
)

// maxRegistryBytes caps how much of the registry doctor reads.
const maxRegistryBytes = 64 << 20

// doctorRun is one run of doctor's checks over the tree at root.
type doctorRun struct {
	root         string
	fix          bool
	now          time.Time
	offlineAfter time.Duration
	maxBytes     int64
	conv         doctorConv

	findings []finding
}

// run performs every check and returns the findings: problems first by
// check, and one "ok" finding for each check that found none.
func (d *doctorRun) run() []finding {
	if !d.checkRoot() {
		return d.findings
	}
	d.checkTree()
	cards := d.checkRegistry()
	d.checkRegistryCopies()
	agents, err := agentDirs(d.root)
	if err != nil {
		d.add(finding{Check: "root", Severity: severityError, Path: d.root, Detail: "cannot list: " + err.Error()})
		return d.findings
	}
	d.checkRootStaging()
	for _, agent := range agents {
		d.checkStaging(agent)
		d.checkRejected(agent)
		pending := d.checkInbox(agent)
		d.checkOffline(agent, cards, pending)
	}
	d.checkConversations(agents, cards)
	for _, check := range checkOrder[1:] {
		if !slices.ContainsFunc(d.findings, func(f finding) bool { return f.Check == check }) {
			d.add(finding{Check: check, Severity: severityOK, Path: d.root, Detail: okDetail[check]})
		}
	}
	slices.SortStableFunc(d.findings, func(a, b finding) int {
		return slices.Index(checkOrder, a.Check) - slices.Index(checkOrder, b.Check)
	})
	return d.findings
}

// checkOrder is the order of the checks and of their findings.
var checkOrder = append([]string{"root", "permissions", "foreign", "registry", "staging", "rejected", "inbox", "offline_agent"},
	convChecks...)

// okDetail says what an "ok" finding of each check means.
var okDetail = map[string]string{
	"permissions":   "every file and folder is yours and private",
	"foreign":       "no symlinks or special files",
	"registry":      "every card readable",
	"staging":       "no orphan staging files",
	"rejected":      "nothing quarantined",
	"inbox":         "every inbox file is a readable message for its agent",
	"offline_agent": "no offline agent has messages waiting",
	"orphan_inbox":  "no messages wait for an agent gone for good",
	"stuck_claim":   "no message is stuck in a claim",
	"overdue_reply": "no reply is overdue",
}

func (d *doctorRun) add(f finding) { d.findings = append(d.findings, f) }

// checkRoot checks that the root is a folder of mode 0700 owned by this
// user. It reports whether the other checks can run.
func (d *doctorRun) checkRoot() bool {
	fi, err := os.Stat(d.root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.add(finding{Check: "root", Severity: severityWarn, Path: d.root,
			Detail: "does not exist; it is created when the first agent starts or a message is sent"})
		return false
	case err != nil:
		d.add(finding{Check: "root", Severity: severityError, Path: d.root, Detail: err.Error()})
		return false
	case !fi.IsDir():
		d.add(finding{Check: "root", Severity: severityError, Path: d.root, Detail: "not a folder"})
		return false
	}
	perm := fi.Mode().Perm()
	f := finding{Check: "root", Severity: severityOK, Path: d.root, Detail: fmt.Sprintf("mode %04o, owned by you", perm)}
	if uid, ok := fileinfo.Owner(fi); ok && uid != os.Geteuid() {
		f.Severity = severityError
		f.Detail = fmt.Sprintf("owned by uid %d, not by you (uid %d): the store refuses it; run: chown %d %s", uid, os.Geteuid(), os.Geteuid(), d.root)
		d.add(f)
		return true
	}
	switch {
	case perm&0o022 != 0:
		f.Severity = severityError
		f.Detail = fmt.Sprintf("mode %04o: writable by group or others, so the store refuses it; run: chmod 700 %s", perm, d.root)
	case perm&0o077 != 0:
		f.Severity = severityWarn
		f.Detail = fmt.Sprintf("mode %04o: others can read every agent's mail; run: chmod 700 %s", perm, d.root)
	}
	if f.Severity != severityOK {
		f.Fixable = true
		d.tighten(&f, d.root, perm)
	}
	d.add(f)
	return true
}

// checkStaging reports (and with --fix removes) staging files older than
// stagingMaxAge: in tmp/, and nanobot's *.tmp files in inbox/.
func (d *doctorRun) checkStaging(agent string) {
	d.staging(agent, filepath.Join(d.root, agent, "tmp"), false)
	d.staging(agent, filepath.Join(d.root, agent, "inbox"), true)
}

// checkRootStaging reports the registry's orphan temporary files: ours
// (._registry.json.*.tmp) and nanobot's (_registry.tmp).
func (d *doctorRun) checkRootStaging() { d.staging("", d.root, true) }

// staging reports the old regular files of dir (only *.tmp ones with
// onlyTmp) as orphan staging files, and removes them with --fix.
func (d *doctorRun) staging(agent, dir string, onlyTmp bool) {
	ents := readDirUnder(d.root, dir) // a missing folder has nothing to check
	for _, e := range ents {
		if !e.Type().IsRegular() || (onlyTmp && !strings.HasSuffix(e.Name(), tmpSuffix)) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // gone meanwhile
		}
		age := d.now.Sub(fi.ModTime())
		if age < stagingMaxAge {
			continue // being written
		}
		path := filepath.Join(dir, e.Name())
		f := finding{Check: "staging", Severity: severityWarn, Agent: agent, Path: path, Fixable: true,
			Detail: fmt.Sprintf("orphan staging file, %s old, left by a crashed writer", shortDuration(age))}
		if d.fix {
			if err := os.Remove(path); err == nil || errors.Is(err, fs.ErrNotExist) {
				f.Fixed = true
			} else {
				f.Detail += "; cannot delete: " + err.Error()
			}
		}
		d.add(f)
	}
}

// checkRejected reports what the agent's receiver set aside in rejected/,
// with the reasons from the .reason.json files.
func (d *doctorRun) checkRejected(agent string) {
	dir := filepath.Join(d.root, agent, "rejected")
	ents := readDirUnder(d.root, dir)
	reasons := map[string]int{}
	n := 0
	for _, e := range ents {
		name := e.Name()
		if strings.HasSuffix(name, reasonSuffix) || strings.HasPrefix(name, ".") {
			continue
		}
		n++
		reasons[quarantineReason(filepath.Join(dir, name+reasonSuffix))]++
	}
	if n == 0 {
		return
	}
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(reasons)) {
		if reasons[r] > 1 {
			r = fmt.Sprintf("%s (×%d)", r, reasons[r])
		}
		parts = append(parts, r)
	}
	d.add(finding{Check: "rejected", Severity: severityWarn, Agent: agent, Path: dir,
		Detail: fmt.Sprintf("%d file(s) quarantined: %s", n, strings.Join(parts, "; "))})
}

// quarantineReason reads the reason of a reason file.
func quarantineReason(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "no reason recorded"
	}
	defer f.Close()
	data, err := readCapped(f, 64<<10)
	var rec struct {
		Reason string `json:"reason"`
	}
	if err != nil || json.Unmarshal(data, &rec) != nil || rec.Reason == "" {
		return "no reason recorded"
	}
	return rec.Reason
}

// checkInbox reports inbox files that are not readable messages for the
// agent, and returns how many files wait there.
func (d *doctorRun) checkInbox(agent string) int {
	dir := filepath.Join(d.root, agent, "inbox")
	ents := readDirUnder(d.root, dir)
	claimed := claimedNames(d.root, agent)
	pending := 0
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(dir, name)
		if strings.HasSuffix(name, tmpSuffix) {
			continue // a write in progress (checkStaging reports old ones)
		}
		if claimed[name] {
			continue // being handled, not waiting (checkClaims reports it)
		}
		pending++
		problem := func(detail string) {
			d.add(finding{Check: "inbox", Severity: severityWarn, Agent: agent, Path: path,
				Detail: detail + "; the receiver moves it to rejected/"})
		}
		if !strings.HasSuffix(name, envelope.MessageSuffix) {
			problem("foreign file (not a *" + envelope.MessageSuffix + ")")
			continue
		}
		msg, err := readMessageFile(path, d.maxBytes)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			pending-- // handled meanwhile
		case errors.Is(err, syscall.ELOOP):
			problem("symlink")
		case err != nil:
			problem("unreadable: " + err.Error())
		case msg.To != agent:
			problem(fmt.Sprintf("addressed to %q", msg.To))
		}
	}
	return pending
}

// checkOffline reports an agent that others must take as offline while
// messages wait for it.
func (d *doctorRun) checkOffline(agent string, cards map[string]envelope.Card, pending int) {
	if pending == 0 {
		return
	}
	path := filepath.Join(d.root, agent, "inbox")
	card, ok := cards[agent]
	if !ok {
		d.add(finding{Check: "offline_agent", Severity: severityWarn, Agent: agent, Path: path,
			Detail: fmt.Sprintf("%d message(s) waiting for an agent that is not registered", pending)})
		return
	}
	if card.EffectiveStatus(d.now, d.offlineAfter) != envelope.StatusOffline {
		return
	}
	d.add(finding{Check: "offline_agent", Severity: severityWarn, Agent: agent, Path: path,
		Detail: fmt.Sprintf("offline (last heartbeat %s) with %d message(s) waiting", ago(d.now, card.LastHeartbeat.Time), pending)})
}

// readCapped reads r whole, failing above limit bytes.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("over %d bytes", limit)
	}
	return data, nil
}
