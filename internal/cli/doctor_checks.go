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

	findings []finding
}

// run performs every check and returns the findings: problems first by
// check, and one "ok" finding for each check that found none.
func (d *doctorRun) run() []finding {
	if !d.checkRoot() {
		return d.findings
	}
	cards := d.checkRegistry()
	agents, err := agentDirs(d.root)
	if err != nil {
		d.add(finding{Check: "root", Severity: severityError, Path: d.root, Detail: "cannot list: " + err.Error()})
		return d.findings
	}
	for _, agent := range agents {
		d.checkStaging(agent)
		d.checkRejected(agent)
		pending := d.checkInbox(agent)
		d.checkOffline(agent, cards, pending)
	}
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
var checkOrder = []string{"root", "registry", "staging", "rejected", "inbox", "offline_agent"}

// okDetail says what an "ok" finding of each check means.
var okDetail = map[string]string{
	"registry":      "every card readable",
	"staging":       "no orphan staging files",
	"rejected":      "nothing quarantined",
	"inbox":         "every inbox file is a readable message for its agent",
	"offline_agent": "no offline agent has messages waiting",
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
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		f.Severity = severityError
		f.Detail = fmt.Sprintf("owned by uid %d, not by you (uid %d): the store refuses it; run: chown %d %s", st.Uid, os.Geteuid(), os.Geteuid(), d.root)
	} else if perm&0o022 != 0 {
		f.Severity = severityError
		f.Detail = fmt.Sprintf("mode %04o: writable by group or others, so the store refuses it; run: chmod 700 %s", perm, d.root)
	} else if perm&0o077 != 0 {
		f.Severity = severityWarn
		f.Detail = fmt.Sprintf("mode %04o: others can read every agent's mail; run: chmod 700 %s", perm, d.root)
	}
	d.add(f)
	return true
}

// checkRegistry parses _registry.json and returns the cards it could read.
func (d *doctorRun) checkRegistry() map[string]envelope.Card {
	path := filepath.Join(d.root, registryFile)
	bad := func(detail string) map[string]envelope.Card {
		d.add(finding{Check: "registry", Severity: severityError, Path: path, Detail: detail})
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // no agent registered yet
	case errors.Is(err, syscall.ELOOP):
		return bad("is a symlink; the store refuses to follow it (remove it)")
	case err != nil:
		return bad(err.Error())
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return bad("not a regular file (remove it)")
	}
	data, err := readCapped(f, maxRegistryBytes)
	if err != nil {
		return bad(err.Error())
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil || entries == nil {
		return bad(fmt.Sprintf("corrupt (%s): cards cannot be read; the next agent to start rewrites it, keeping a copy", describeJSON(err)))
	}
	cards := map[string]envelope.Card{}
	for _, id := range slices.Sorted(maps.Keys(entries)) {
		var c envelope.Card
		if err := json.Unmarshal(entries[id], &c); err != nil {
			d.add(finding{Check: "registry", Severity: severityError, Agent: id, Path: path,
				Detail: "card unreadable: " + describeJSON(err)})
			continue
		}
		if c.AgentID != id {
			d.add(finding{Check: "registry", Severity: severityWarn, Agent: id, Path: path,
				Detail: fmt.Sprintf("card under key %q says agent_id %q", id, c.AgentID)})
		}
		cards[id] = c
	}
	return cards
}

// describeJSON words a JSON decoding error (nil: a null document).
func describeJSON(err error) string {
	if err == nil {
		return "null instead of an object"
	}
	return err.Error()
}

// checkStaging reports (and with --fix removes) staging files older than
// stagingMaxAge: in tmp/, and nanobot's *.tmp files in inbox/.
func (d *doctorRun) checkStaging(agent string) {
	for _, sub := range []string{"tmp", "inbox"} {
		dir := filepath.Join(d.root, agent, sub)
		ents, _ := os.ReadDir(dir) // a missing folder has nothing to check
		for _, e := range ents {
			if !e.Type().IsRegular() || (sub == "inbox" && !strings.HasSuffix(e.Name(), tmpSuffix)) {
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
			f := finding{Check: "staging", Severity: severityWarn, Agent: agent, Path: path,
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
}

// checkRejected reports what the agent's receiver set aside in rejected/,
// with the reasons from the .reason.json files.
func (d *doctorRun) checkRejected(agent string) {
	dir := filepath.Join(d.root, agent, "rejected")
	ents, _ := os.ReadDir(dir)
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
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
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
	ents, _ := os.ReadDir(dir)
	pending := 0
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(dir, name)
		if strings.HasSuffix(name, tmpSuffix) {
			continue // a write in progress (checkStaging reports old ones)
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
			pending-- // claimed meanwhile
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
