package cli

import (
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// inboxKinds are the kinds inbox --kind takes: seed 000's conversation
// kinds (envelope.Message.Kind).
var inboxKinds = []envelope.Kind{envelope.KindRequest, envelope.KindResponse, envelope.KindNotify}

// inboxFilter is what inbox --kind and --since keep: messages of one of
// kinds (none: every kind) sent at or after since (zero: any time).
type inboxFilter struct {
	kinds []envelope.Kind
	since time.Time
}

// newInboxFilter reads --kind (names, each maybe a comma-separated list)
// and --since (an RFC 3339 time or a duration before now). Every error is
// a usage error.
func newInboxFilter(kinds []string, since string, now time.Time) (inboxFilter, error) {
	var f inboxFilter
	for _, k := range kinds {
		kind := envelope.Kind(strings.TrimSpace(k))
		if !kind.Valid() {
			names := make([]string, len(inboxKinds))
			for i, k := range inboxKinds {
				names[i] = string(k)
			}
			return f, usagef("--kind %q: want one of %s", k, strings.Join(names, ", "))
		}
		if !slices.Contains(f.kinds, kind) {
			f.kinds = append(f.kinds, kind)
		}
	}
	var err error
	if f.since, err = pastTime(since, now); err != nil {
		return f, usagef("--since: %v", err)
	}
	return f, nil
}

// active reports whether the filter leaves anything out.
func (f inboxFilter) active() bool { return len(f.kinds) > 0 || !f.since.IsZero() }

// keep reports whether inbox lists msg. A file that cannot be read (msg
// nil) has no kind or time: it is listed only when nothing is filtered.
func (f inboxFilter) keep(msg *envelope.Message) bool {
	if msg == nil {
		return !f.active()
	}
	if len(f.kinds) > 0 && !slices.Contains(f.kinds, msg.Kind()) {
		return false
	}
	return f.since.IsZero() || !msg.Timestamp.Before(f.since)
}
