// Package channelhost runs the platform channels (Feishu, Telegram, Slack,
// HTTP) in a second process for their tests of what outlives a process: a
// SIGKILL mid-turn, a restart that hands a message over again, two agents
// delegating to each other. Each channel's tests have a helper test that
// calls Serve, and start it with Start.
package channelhost
