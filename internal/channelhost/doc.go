// Package channelhost runs the platform channels (Feishu, Telegram, Slack,
// HTTP) for their tests: in the test's process (Run, with a scripted
// Agent on the bus), and in a second process for what outlives a
// process: a SIGKILL mid-turn, a restart that hands a message over again,
// two agents delegating to each other (each channel's tests have a helper
// test that calls Serve, and start it with Start). Only tests import it.
package channelhost
