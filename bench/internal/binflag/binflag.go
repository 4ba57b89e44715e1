package binflag

import (
	"fmt"
	"strings"
)

// Binary is one switchboard binary to measure.
type Binary struct{ Name, Path string }

// Binaries are the -bin NAME=PATH flags, in order (a flag.Value).
type Binaries []Binary

// String implements flag.Value.
func (b *Binaries) String() string { return fmt.Sprint(*b) }

// Set implements flag.Value: one NAME=PATH.
func (b *Binaries) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("%q: want NAME=PATH", v)
	}
	*b = append(*b, Binary{name, path})
	return nil
}
