package telegram

import (
	"strings"

	"github.com/switchboard-dev/switchboard/channels"
)

// allowed is nanobot's allowFrom rule for Telegram (a channels.AllowRule):
// a sender, "<user id>|<username>" (see senderID), passes when the list
// holds "*", the whole sender id, its user id, or its username. A
// username matches with or without a leading "@", in any case, as
// Telegram's usernames do.
func allowed(allowFrom []string, sender string) bool {
	if channels.IsAllowed(allowFrom, sender) {
		return true
	}
	id, username, _ := strings.Cut(sender, "|")
	for _, entry := range allowFrom {
		switch {
		case entry == "":
		case entry == id:
			return true
		case username != "" && strings.EqualFold(strings.TrimPrefix(entry, "@"), username):
			return true
		}
	}
	return false
}
