package driver

import (
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// EncodeForDelivery checks msg before a backend stores it and returns its
// encoding by encode (envelope.Encode, or envelope.EncodeCompact where no
// one reads the bytes by eye): from and to must be valid agent ids, the
// message must pass envelope.Validate and carry a timestamp, and the
// encoding must be at most maxBytes long. Errors name the message and wrap
// envelope.ErrBadAgentID, envelope.ErrMalformed or envelope.ErrTooLarge.
func EncodeForDelivery(msg *envelope.Message, maxBytes int64, encode func(*envelope.Message) ([]byte, error)) ([]byte, error) {
	if msg == nil {
		return nil, errors.New("deliver: nil message")
	}
	if err := envelope.ValidateAgentID(msg.From); err != nil {
		return nil, fmt.Errorf("deliver %s: from: %w", msg.ID, err)
	}
	if err := envelope.ValidateAgentID(msg.To); err != nil {
		return nil, fmt.Errorf("deliver %s: to: %w", msg.ID, err)
	}
	if err := envelope.Validate(msg); err != nil {
		return nil, fmt.Errorf("deliver %s: %w", msg.ID, err)
	}
	if msg.Timestamp.IsZero() {
		return nil, fmt.Errorf("deliver %s: %w: missing timestamp", msg.ID, envelope.ErrMalformed)
	}
	data, err := encode(msg)
	if err != nil {
		return nil, fmt.Errorf("deliver %s: encode: %w", msg.ID, err)
	}
	if n := int64(len(data)); n > maxBytes {
		return nil, fmt.Errorf("deliver %s to %q: message is %d bytes, over the limit of %d bytes (maxMessageBytes): %w",
			msg.ID, msg.To, n, maxBytes, envelope.ErrTooLarge)
	}
	return data, nil
}
