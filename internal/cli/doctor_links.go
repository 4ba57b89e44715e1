package cli

import (
	"fmt"
	"path/filepath"
	"strings"
)

// addHardLink reports a file of the tree that has more than one link. The
// other link may be a file outside the tree, so doctor never changes it
// (no chmod: that would change the outside file too) and the receiver
// sets such a message aside. A staging file in tmp/ shares its message's
// inode for a moment (longer if its sender died): the staging check
// reports those, and the receiver removes them.
func (d *doctorRun) addHardLink(agent, rel, path string, links uint64) {
	if parts := strings.Split(rel, string(filepath.Separator)); len(parts) == 3 && parts[1] == "tmp" {
		return
	}
	d.add(finding{Check: "foreign", Severity: severityWarn, Agent: agent, Path: path,
		Detail: fmt.Sprintf("a hard link (%d links): it may be a file outside the mailbox, so doctor never changes it and the receiver sets it aside; if its other link is a staging file in tmp/, that is removed when its message is received, else remove this one unless you put it there", links)})
}
