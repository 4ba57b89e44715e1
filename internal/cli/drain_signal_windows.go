//go:build windows

package cli

// onDrainSignal does nothing on Windows, which has no SIGUSR1: use
// `switchboard drain AGENT`.
func onDrainSignal(func()) (stop func()) { return func() {} }
