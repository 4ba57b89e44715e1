package fsstore

import (
	"bytes"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// direntKind is the kind of a folder entry, as eachDirent reports it.
type direntKind uint8

const (
	direntOther direntKind = iota // a symlink, a device, ...: never a message
	direntFile                    // a regular file
	direntDir                     // a folder
)

// isMessageName is classify(name) == entryMessage, on bytes.
func isMessageName(name []byte) bool {
	return bytes.HasSuffix(name, []byte(envelope.MessageSuffix))
}
