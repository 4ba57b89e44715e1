package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// doctorConv holds the settings of doctor's conversation checks. A zero
// duration turns its check off: no orphans without orphanAfter, no due
// time but reply_by and deadlines without replyTimeout, no "held too
// long" without stuckAfter.
type doctorConv struct {
	orphanAfter  time.Duration // channels.mailbox.orphanAfter
	replyTimeout time.Duration // channels.mailbox.replyTimeout
	stuckAfter   time.Duration // channels.mailbox.taskTimeout
}

// The conversation checks, in their order after the others.
var convChecks = []string{"orphan_inbox", "stuck_claim", "overdue_reply"}

// checkConversations runs the checks of threads and replies: inboxes of
// agents gone for longer than orphanAfter (--fix moves their waiting and
// claimed messages to <agent>/archive/orphan/), messages stuck in a claim,
// and requests whose reply is overdue.
func (d *doctorRun) checkConversations(agents []string, cards map[string]envelope.Card) {
	for _, agent := range agents {
		gone, since := d.gone(agent, cards)
		if gone && d.conv.orphanAfter > 0 {
			d.checkOrphan(agent, since)
			continue
		}
		d.checkClaims(agent, cards)
	}
	d.checkOverdue()
}

// gone reports whether agent has been away longer than orphanAfter, and
// since when: its last heartbeat, or for an agent without a card the
// newest message waiting for it.
func (d *doctorRun) gone(agent string, cards map[string]envelope.Card) (bool, time.Time) {
	if card, ok := cards[agent]; ok {
		if card.EffectiveStatus(d.now, d.offlineAfter) != envelope.StatusOffline {
			return false, time.Time{}
		}
		return d.now.Sub(card.LastHeartbeat.Time) > d.conv.orphanAfter, card.LastHeartbeat.Time
	}
	var newest time.Time
	for _, box := range []string{"inbox", "claimed"} {
		for _, f := range messageFiles(d.root, filepath.Join(d.root, agent, box)) {
			if f.mod.After(newest) {
				newest = f.mod
			}
		}
	}
	return !newest.IsZero() && d.now.Sub(newest) > d.conv.orphanAfter, newest
}

// checkOrphan reports the messages waiting for (or claimed by) an agent
// that is gone, and with --fix moves them to archive/orphan/.
func (d *doctorRun) checkOrphan(agent string, since time.Time) {
	var files []string
	for _, box := range []string{"inbox", "claimed"} {
		for _, f := range messageFiles(d.root, filepath.Join(d.root, agent, box)) {
			files = append(files, f.path)
		}
	}
	if len(files) == 0 {
		return
	}
	dst := filepath.Join(d.root, agent, "archive", "orphan")
	f := finding{Check: "orphan_inbox", Severity: severityWarn, Agent: agent, Path: filepath.Join(d.root, agent, "inbox"),
		Fixable: true, Detail: fmt.Sprintf("%d message(s) for an agent gone since %s (longer than channels.mailbox.orphanAfter, %s); --fix moves them to %s",
			len(files), ago(d.now, since), shortDuration(d.conv.orphanAfter), filepath.Join(agent, "archive", "orphan"))}
	if d.fix {
		moved, err := d.moveOrphans(agent, files, dst)
		f.Fixed = err == nil
		if err != nil {
			f.Detail += fmt.Sprintf("; %d moved, then: %v", moved, err)
		}
	}
	d.add(f)
}

// moveOrphans moves files into dst (never replacing a file there) and
// records each move in the audit log.
func (d *doctorRun) moveOrphans(agent string, files []string, dst string) (int, error) {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return 0, err
	}
	log, err := audit.Open(d.root, audit.Options{})
	if err != nil {
		return 0, err
	}
	defer log.Close()
	for i, src := range files {
		name := filepath.Base(src)
		target := filepath.Join(dst, name)
		if _, err := os.Lstat(target); err == nil {
			target = filepath.Join(dst, strings.TrimSuffix(name, envelope.MessageSuffix)+fmt.Sprintf("_o%d", d.now.UnixNano())+envelope.MessageSuffix)
		}
		if err := os.Rename(src, target); err != nil {
			return i, err
		}
		ev := store.Event{Time: d.now, Kind: store.EventOrphaned, Agent: agent,
			Ref: filepath.Join("archive", "orphan", filepath.Base(target)), Reason: "agent gone; moved by doctor --fix"}
		if msg, err := readMessageFile(target, d.maxBytes); err == nil {
			ev.MessageID, ev.From, ev.ThreadID, ev.TaskID = msg.ID, msg.From, msg.ThreadID, msg.TaskOf()
		}
		_ = log.Append(ev) // the move is done; the log is for people
	}
	return len(files), nil
}

// checkClaims reports messages an agent has claimed but not handled:
// while it is offline they wait for its next start; while it runs, one
// held longer than taskTimeout is stuck (a task or a request not
// answered). The claims are those of its claim log whose files are still
// in inbox/, and the files a receiver left in claimed/ (where claims
// were moved before the claim log).
func (d *doctorRun) checkClaims(agent string, cards map[string]envelope.Card) {
	var since []time.Time // when each was claimed
	for _, f := range messageFiles(d.root, filepath.Join(d.root, agent, "claimed")) {
		since = append(since, f.claimed)
	}
	claims, err := fsstore.Claims(d.root, agent)
	if err != nil {
		d.add(finding{Check: "stuck_claim", Severity: severityWarn, Agent: agent, Path: filepath.Join(d.root, agent, "state"),
			Detail: fmt.Sprintf("the claim log cannot be read: %v", err)})
	}
	for _, c := range claims {
		since = append(since, c.At)
	}
	if len(since) == 0 {
		return
	}
	path := filepath.Join(d.root, agent, "inbox")
	card, ok := cards[agent]
	if !ok || card.EffectiveStatus(d.now, d.offlineAfter) == envelope.StatusOffline {
		d.add(finding{Check: "stuck_claim", Severity: severityWarn, Agent: agent, Path: path,
			Detail: fmt.Sprintf("%d message(s) claimed by an agent that is not running; they are handed out again when it starts", len(since))})
		return
	}
	stuck, oldest := 0, d.now
	for _, at := range since {
		if d.conv.stuckAfter > 0 && d.now.Sub(at) > d.conv.stuckAfter {
			stuck++
			if at.Before(oldest) {
				oldest = at
			}
		}
	}
	if stuck > 0 {
		d.add(finding{Check: "stuck_claim", Severity: severityWarn, Agent: agent, Path: path,
			Detail: fmt.Sprintf("%d message(s) held for longer than channels.mailbox.taskTimeout (%s), the oldest since %s: a task not finished or a request not answered (see switchboard pending %s)",
				stuck, shortDuration(d.conv.stuckAfter), ago(d.now, oldest), agent)})
	}
}

// checkOverdue reports requests whose reply is overdue.
func (d *doctorRun) checkOverdue() {
	all, err := readTree(d.root, d.maxBytes)
	if err != nil {
		return // the root check says why
	}
	stored := make([]store.Stored, len(all))
	for i, m := range all {
		parts := strings.Split(m.rel, string(filepath.Separator))
		stored[i] = store.Stored{Message: m.msg, Agent: parts[0], Box: m.box, Ref: m.rel}
	}
	for _, p := range view.PendingOf(stored, view.PendingFilter{Now: d.now, ReplyTimeout: d.conv.replyTimeout, OverdueOnly: true}) {
		about := ""
		if p.Subject != "" {
			about = " about " + p.Subject
		}
		d.add(finding{Check: "overdue_reply", Severity: severityWarn, Agent: p.To, Path: filepath.Join(d.root, p.Where.Ref),
			Detail: fmt.Sprintf("%s %s asked %s%s, due %s, has no reply (see switchboard pending %s)",
				p.Type, p.MessageID, p.To, about, ago(d.now, p.Due.Time), p.To)})
	}
}

// messageFile is a message file found in a folder.
type messageFile struct {
	path         string
	mod, claimed time.Time // written, and last renamed (claimed)
}

// messageFiles lists the regular message files of dir, a folder of the
// tree at root (see readDirUnder).
func messageFiles(root, dir string) []messageFile {
	ents := readDirUnder(root, dir) // a missing folder has none
	var out []messageFile
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), envelope.MessageSuffix) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, messageFile{path: filepath.Join(dir, e.Name()), mod: fi.ModTime(), claimed: changeTime(fi)})
	}
	return out
}
