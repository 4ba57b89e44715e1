package host

import (
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"   // registers the mailbox backend "fs"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore" // registers the mailbox backend "nats"
)
