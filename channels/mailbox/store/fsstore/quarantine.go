package fsstore

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// reasonSuffix ends the file beside each quarantined entry that says why.
const reasonSuffix = ".reason.json"

// reasonRecord is the content of a reason file.
type reasonRecord struct {
	Reason    string        `json:"reason"`
	Time      envelope.Time `json:"time"`
	Agent     string        `json:"agent"`
	File      string        `json:"file"` // the entry's name where it was found
	MessageID string        `json:"message_id,omitempty"`
	From      string        `json:"from,omitempty"`
}

// quarantine moves <agent>/<sub>/name into rejected/ (under a free name),
// writes <name>.reason.json beside it and reports an event of kind. msg is
// the decoded message, if any. The entry is renamed, never opened, so a
// symlink or FIFO is moved as it is.
func (in *Inbox) quarantine(sub, name, reason string, kind driver.EventKind, msg *envelope.Message) error {
	rejected := filepath.Join(in.dir, rejectedDir)
	if err := ensureDir(rejected); err != nil {
		in.log.Error("cannot quarantine", "file", name, "reason", reason, "err", err)
		return err
	}
	got, err := moveFree(filepath.Join(in.dir, sub), name, rejected)
	if err != nil {
		in.log.Error("cannot quarantine", "file", name, "reason", reason, "err", err)
		return fmt.Errorf("move %s to rejected/: %w", name, err)
	}
	rec := reasonRecord{Reason: reason, Time: envelope.NewTime(in.s.opts.Now()), Agent: in.agent, File: name}
	ev := messageEvent(kind, in.agent, msg, got)
	ev.Reason = reason
	if msg != nil {
		rec.MessageID, rec.From = msg.ID, msg.From
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err == nil {
		err = writeFileAtomic(filepath.Join(rejected, got+reasonSuffix), data, !in.s.opts.NoSync)
	}
	if err != nil {
		in.log.Warn("quarantined without a reason file", "file", got, "err", err)
	}
	in.log.Warn("mailbox input set aside", "file", got, "kind", kind, "reason", reason)
	in.s.emit(ev)
	return nil
}
