package channels

import (
	"fmt"
	"log/slog"
)

// redacted is what a Secret shows of itself.
const redacted = "[redacted]"

// Secret is a configuration value that must never reach a log or an error
// message: an app secret, a token, an encryption key. It decodes from a
// config section as a string does. Printed in any way (fmt's verbs, slog,
// JSON) it shows "[redacted]", or nothing when empty, so a config struct
// logged whole gives nothing away; Reveal returns the value for the one
// call that needs it.
type Secret string

// Reveal returns the secret's value.
func (s Secret) Reveal() string { return string(s) }

// String returns "[redacted]", or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString is String, for %#v.
func (s Secret) GoString() string { return s.String() }

// Format prints String whatever the verb, so that %s, %q, %x and %v alike
// show nothing of the value.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", s.String())
		return
	}
	fmt.Fprint(f, s.String())
}

// LogValue implements slog.LogValuer.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON encodes String.
func (s Secret) MarshalJSON() ([]byte, error) { return fmt.Appendf(nil, "%q", s.String()), nil }
