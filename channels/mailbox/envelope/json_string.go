package envelope

// AppendJSONString appends s as a JSON string exactly as encoding/json
// writes it (with its default HTML escaping), for the hand-written
// encoders of other packages.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }
