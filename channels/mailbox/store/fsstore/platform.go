package fsstore

import "errors"

// ErrUnsupportedPlatform is returned by Open on a system without the file
// locks and O_NOFOLLOW the folder mailbox relies on (windows). The NATS
// backend works there.
var ErrUnsupportedPlatform = errors.New(`fsstore: the folder mailbox needs a unix system (file locks, O_NOFOLLOW); on windows use channels.mailbox.backend "nats"`)
