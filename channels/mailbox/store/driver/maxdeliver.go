package driver

import (
	"fmt"
	"strings"
)

// maxDeliverText is what every reason MaxDeliverReason makes contains.
const maxDeliverText = " times without an acknowledgement (maxDeliver "

// MaxDeliverReason is the reason of a message set aside (EventQuarantined)
// because it was handed out n times, the maxDeliver limit max, without an
// acknowledgement: a poison message that crashes its receiver. Every
// backend words it so, and IsMaxDeliver recognises it.
func MaxDeliverReason(n, max int) string {
	return fmt.Sprintf("handed out %d%s%d)", n, maxDeliverText, max)
}

// IsMaxDeliver reports whether reason is one MaxDeliverReason made.
func IsMaxDeliver(reason string) bool {
	return strings.HasPrefix(reason, "handed out ") && strings.Contains(reason, maxDeliverText)
}
