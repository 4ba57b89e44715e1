package channels

import (
	"context"

	"github.com/switchboard-dev/switchboard/bus"
)

// Channel is a chat platform connected to the bus. Start begins receiving
// (it returns once the channel is running; ctx bounds the start-up only),
// Stop ends it within ctx's deadline, and Send delivers one outbound message.
// Send may be called concurrently with itself.
type Channel interface {
	Name() string
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	Send(ctx context.Context, msg bus.OutboundMessage) error
}

// AllowLister is implemented by channels that restrict senders. The Manager
// refuses to start a channel whose list is empty, because an empty list
// denies everyone (see IsAllowed).
type AllowLister interface {
	AllowFrom() []string
}

// Addresser is a Channel that listens somewhere people or platforms
// reach it (a webhook URL); the host logs the address at start.
type Addresser interface {
	// Address returns what the address is (the key of the log attribute,
	// "webhook") and where the channel listens ("" before it does).
	Address() (what, where string)
}
