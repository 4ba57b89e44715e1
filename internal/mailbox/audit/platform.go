package audit

import "errors"

// ErrUnsupportedPlatform is returned by Open on a system without the file
// locks and O_NOFOLLOW the log relies on (windows).
var ErrUnsupportedPlatform = errors.New("audit log: needs a unix system (file locks, O_NOFOLLOW)")
