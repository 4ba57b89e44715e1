package mailbox_test

import (
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"   // registers the backend "fs"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore" // registers the backend "nats"
)
