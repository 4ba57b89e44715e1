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
// Importing host registers the mailbox channel and its "fs" and "nats"
// backends.
package host
