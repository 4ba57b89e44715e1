package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/fileinfo"
)

// openBits are the permission bits that let group or others in.
const openBits = 0o077

// permGroup is what checkTree found in one agent's folder (or, for agent
// "", among the other entries of the root).
type permGroup struct {
	folders, files int         // entries open to group or others
	writable       int         // of those, writable by group or others
	example        string      // one of them, a writable one if any
	exampleMode    fs.FileMode // its permissions
	failed         []string    // chmod errors of --fix
	others         int         // entries owned by another user
	otherUID       int
	otherExample   string
}

// checkTree walks the whole tree without following symlinks and reports,
// per agent folder, entries that group or others can read or write (warn;
// error when they can write: they could plant or alter messages; --fix
// makes them private with chmod go-rwx) and entries owned by another user
// (error: only chown can repair that). Symlinks and special files anywhere
// but in an inbox (the inbox check reports those) are foreign: reported,
// never followed nor removed.
func (d *doctorRun) checkTree() {
	groups := map[string]*permGroup{}
	group := func(agent string) *permGroup {
		if groups[agent] == nil {
			groups[agent] = &permGroup{}
		}
		return groups[agent]
	}
	_ = filepath.WalkDir(d.root, func(path string, e fs.DirEntry, err error) error {
		if path == d.root {
			return err // the root check already said why it cannot be read
		}
		rel, _ := filepath.Rel(d.root, path)
		agent := agentOf(rel, e)
		if err != nil {
			d.add(finding{Check: "permissions", Severity: severityError, Agent: agent, Path: path,
				Detail: "cannot read: " + err.Error()})
			return nil
		}
		if t := e.Type(); !t.IsDir() && !t.IsRegular() {
			ownSocket := rel == fsstore.WatchSocketName && t&fs.ModeSocket != 0 // the root's shared watcher
			if !inInbox(rel) && !ownSocket {
				d.addForeign(agent, path, t)
			}
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return nil // gone meanwhile
		}
		if n := fileinfo.Links(fi); !fi.IsDir() && n > 1 {
			d.addHardLink(agent, rel, path, n) // never chmodded: it may be a file outside the tree
			return nil
		}
		d.checkEntry(group(agent), rel, path, fi)
		return nil
	})
	agents := make([]string, 0, len(groups))
	for agent := range groups {
		agents = append(agents, agent)
	}
	slices.Sort(agents)
	for _, agent := range agents {
		d.reportGroup(agent, groups[agent])
	}
}

// checkEntry counts the file or folder at path into g, and with --fix
// makes it private.
func (d *doctorRun) checkEntry(g *permGroup, rel, path string, fi fs.FileInfo) {
	if uid, ok := fileinfo.Owner(fi); ok && uid != os.Geteuid() {
		if g.others == 0 {
			g.otherUID, g.otherExample = uid, rel
		}
		g.others++
		return
	}
	perm := fi.Mode().Perm()
	if perm&openBits == 0 {
		return
	}
	if fi.IsDir() {
		g.folders++
	} else {
		g.files++
	}
	writable := perm&0o022 != 0
	if writable {
		g.writable++
	}
	if g.example == "" || (writable && g.writable == 1) {
		g.example, g.exampleMode = rel, perm
	}
	if d.fix {
		if err := os.Chmod(path, perm&^openBits); err != nil {
			g.failed = append(g.failed, err.Error())
		}
	}
}

// reportGroup adds the findings of one agent's folder.
func (d *doctorRun) reportGroup(agent string, g *permGroup) {
	path := filepath.Join(d.root, agent)
	if g.others > 0 {
		d.add(finding{Check: "permissions", Severity: severityError, Agent: agent, Path: path,
			Detail: fmt.Sprintf("%d file(s) or folder(s) owned by another user (uid %d), e.g. %s: that user can read and change them; run: chown -R %d %s",
				g.others, g.otherUID, g.otherExample, os.Geteuid(), path)})
	}
	if g.folders+g.files == 0 {
		return
	}
	f := finding{Check: "permissions", Severity: severityWarn, Agent: agent, Path: path, Fixable: true}
	open := fmt.Sprintf("%d folder(s) and %d file(s) open to group or others", g.folders, g.files)
	if g.writable > 0 {
		f.Severity = severityError
		open += fmt.Sprintf(" (%d writable: others can plant or alter messages)", g.writable)
	}
	f.Detail = fmt.Sprintf("%s, e.g. %s (mode %04o); --fix makes them private (chmod go-rwx)", open, g.example, g.exampleMode)
	if d.fix {
		f.Fixed = len(g.failed) == 0
		if !f.Fixed {
			f.Detail += fmt.Sprintf("; %d not changed: %s", len(g.failed), g.failed[0])
		}
	}
	d.add(f)
}

// addForeign reports a symlink or special file in the tree.
func (d *doctorRun) addForeign(agent, path string, t fs.FileMode) {
	what := "a special file"
	switch {
	case t&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		what = "a symlink to " + target
	case t&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case t&fs.ModeSocket != 0:
		what = "a socket"
	case t&fs.ModeDevice != 0:
		what = "a device"
	}
	d.add(finding{Check: "foreign", Severity: severityWarn, Agent: agent, Path: path,
		Detail: what + ": the mailbox never follows or uses it; remove it unless you put it there"})
}

// tighten makes the folder at path private (chmod go-rwx) under --fix,
// recording the outcome in f.
func (d *doctorRun) tighten(f *finding, path string, perm fs.FileMode) {
	if !d.fix {
		return
	}
	if err := os.Chmod(path, perm&^openBits); err != nil {
		f.Detail += "; cannot chmod: " + err.Error()
		return
	}
	f.Fixed = true
}

// agentOf names the agent whose folder holds rel (a path under the root),
// or "" for an entry of the root that is not an agent folder.
func agentOf(rel string, e fs.DirEntry) string {
	first, _, nested := strings.Cut(rel, string(filepath.Separator))
	if envelope.ValidateAgentID(first) != nil || (!nested && (e == nil || !e.IsDir())) {
		return ""
	}
	return first
}

// inInbox reports whether rel is an entry of an agent's inbox/.
func inInbox(rel string) bool {
	parts := strings.Split(rel, string(filepath.Separator))
	return len(parts) == 3 && parts[1] == "inbox"
}
