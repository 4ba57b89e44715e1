package fsstore

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/fileinfo"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
)

// deadSenderReason marks a "sent" line that a receiver logged for a sender
// that stopped between delivering the message and logging it.
const deadSenderReason = "logged by the receiver: its sender stopped after delivering it, before logging it"

// dropStaging removes the staging file tmp/name (described by fi), which
// is older than stagingMaxAge: its sender died. A staging file with
// another link was linked into the inbox, so the message was delivered
// and its sender died before it logged "sent"; the line is logged first
// (logSentOnce) so the audit log has every delivered message.
func (in *Inbox) dropStaging(tmp, name string, fi fs.FileInfo) {
	path := filepath.Join(tmp, name)
	if fileinfo.Links(fi) > 1 {
		if msg, err := readMessage(path, in.s.opts.MaxMessageBytes); err == nil {
			in.s.logSentOnce(msg)
		}
	}
	if os.Remove(path) == nil {
		in.log.Info("removed orphaned staging file", "file", name)
	}
}

// logSentOnce logs a "sent" line for msg unless the audit log already has
// one. It reads the log (all its files) under the log's lock, which the
// sender holds from linking the message in until it has logged "sent",
// so a sender that is still alive has always logged it by then. It runs
// only for a message whose sender died (a staging file left behind),
// never on the normal path.
func (s *Store) logSentOnce(msg *envelope.Message) {
	if s.audit == nil {
		return
	}
	s.emitAfter(func() *driver.Event {
		found := false
		_, err := audit.Read(context.Background(), s.root,
			audit.Filter{MessageID: msg.ID, Kinds: []driver.EventKind{driver.EventSent}},
			func(audit.Entry) bool { found = true; return false })
		if err != nil || found {
			return nil
		}
		ev := messageEvent(driver.EventSent, msg.To, msg, envelope.FileName(msg))
		ev.Reason = deadSenderReason
		return &ev
	})
}
