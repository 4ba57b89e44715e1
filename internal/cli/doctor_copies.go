package cli

import (
	"fmt"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// checkRegistryCopies reports the copies of a corrupt registry that
// writers kept (_registry.json.corrupt-*): how many and the newest. With
// --fix it removes all but the newest, which is enough to see what tore
// the registry.
func (d *doctorRun) checkRegistryCopies() {
	names, err := fsstore.CorruptRegistryCopies(d.root)
	if err != nil || len(names) == 0 {
		return // the root check reports an unreadable root
	}
	f := finding{Check: "registry", Severity: severityWarn, Path: filepath.Join(d.root, names[0]),
		Detail: fmt.Sprintf("%d %s of a corrupt registry kept, newest %s: a writer that takes no lock (nanobot's) tore _registry.json",
			len(names), plural(len(names), "copy", "copies"), names[0])}
	if len(names) == 1 {
		f.Detail += "; delete it once you have looked at it"
		d.add(f)
		return
	}
	f.Fixable = true
	f.Detail += "; --fix removes all but the newest"
	if d.fix {
		if _, err := fsstore.PruneCorruptRegistryCopies(d.root, 1); err != nil {
			f.Detail += "; not all removed: " + err.Error()
		} else {
			f.Fixed = true
		}
	}
	d.add(f)
}

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
