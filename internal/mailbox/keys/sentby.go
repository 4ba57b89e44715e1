package keys

import (
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// MetaSentBy is the metadata key naming who sent a message in the name
// of the agent its from names: the operator's cancel (operator), an
// agent breaking a deadlock it is part of (that agent). Such a message is
// signed by the agent its from names when its key can be read where it
// is sent, else by the one sent_by names.
const MetaSentBy = "sent_by"

// SentBy returns who m says sent it in its from's name (metadata
// sent_by), "" when it says none or names its from.
func SentBy(m *envelope.Message) string {
	by, _ := m.Metadata[MetaSentBy].(string)
	if by == m.From || envelope.ValidateAgentID(by) != nil {
		return ""
	}
	return by
}
