package envelope

import "encoding/json"

// Encode writes m in the wire format: ttl as a number, trace and parts as
// lists (never null), metadata as an object, reply_to null when empty;
// indented by two spaces, as in nanobot's message files.
func Encode(m *Message) ([]byte, error) { return json.MarshalIndent(wireForm(m), "", "  ") }

// EncodeCompact writes m in the same wire format as Encode, on one line:
// for transports no one reads by eye (NATS), where it is cheaper to make
// and to decode. Decode reads both forms.
func EncodeCompact(m *Message) ([]byte, error) { return json.Marshal(wireForm(m)) }

// wireForm is m as Encode and EncodeCompact write it.
func wireForm(m *Message) any {
	out := *m
	if out.Trace == nil {
		out.Trace = []string{}
	}
	if out.Content.Parts == nil {
		out.Content.Parts = []Part{}
	}
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	type plain Message // no methods, so no recursion
	w := struct {
		plain
		ReplyTo *string `json:"reply_to"`
	}{plain: plain(out)}
	if out.ReplyTo != "" {
		w.ReplyTo = &out.ReplyTo
	}
	return w
}
