package host_test

import (
	_ "github.com/switchboard-dev/switchboard/channels/mailbox" // the program picks the channel types: the tests run the mailbox
)
