package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// repairLimit bounds doctor's wait for the registry's lock.
const repairLimit = 10 * time.Second

// repairRegistry is the finding of a registry that does not parse: the
// readers go on with what they can read, and --fix rewrites it from the
// readable cards and the live agents' heartbeats (fsstore.RepairRegistry),
// keeping a copy of the corrupt file.
func (d *doctorRun) repairRegistry(path, why string) finding {
	f := finding{Check: "registry", Severity: severityError, Path: path, Fixable: true,
		Detail: fmt.Sprintf("corrupt (%s): readers use the cards that can be read and the live agents' heartbeats; --fix rewrites it from them, keeping a copy", why)}
	if !d.fix {
		return f
	}
	st, err := fsstore.Open(fsstore.Options{Root: d.root})
	if err != nil {
		f.Detail += "; not repaired: " + err.Error()
		return f
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), repairLimit)
	defer cancel()
	rep, err := st.RepairRegistry(ctx)
	if err != nil {
		f.Detail += "; not repaired: " + err.Error()
		return f
	}
	f.Fixed = true
	f.Detail = fmt.Sprintf("corrupt (%s): rewritten with %d readable %s (%s) and %d from live agents' heartbeats (%s); the corrupt file is kept as %s",
		why, len(rep.Salvaged), plural(len(rep.Salvaged), "card", "cards"), list(rep.Salvaged),
		len(rep.Rebuilt), list(rep.Rebuilt), rep.Copy)
	return f
}
