// Package host assembles what `switchboard run` runs from a loaded
// configuration, for programs that embed switchboard: a bus, the channels
// the config enables (built by the channel registry, so a custom channel
// registered beside the mailbox runs too), the provider that
// agents.defaults.provider names, the agent loop, the mailbox tools and
// the mailbox's task judgement wired to the loop, and a graceful stop
// that loses nothing it took in.
//
//	cfg, err := host.LoadConfig("")          // ~/.nanobot/config.json + NANOBOT_ overrides
//	h, err := host.New(cfg, host.Options{Logger: logger})
//	err = h.Run(ctx)                          // until ctx ends, then Stop
//
// host imports no provider, store backend or channel type: they register
// themselves by name when the program imports them (as database/sql's
// drivers do), so an embedder links only what it imports. A program that
// runs the mailbox on folders with the scripted provider imports:
//
//	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
//	_ "github.com/switchboard-dev/switchboard/channels/mailbox"
//	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
//
// cmd/switchboard/main.go imports every module switchboard ships.
package host
