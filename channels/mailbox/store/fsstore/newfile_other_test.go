//go:build !linux

package fsstore

// newFileFallbacks: createNew has none on this system.
var newFileFallbacks = map[string]func(dir, name string, data []byte) error{}
