// Package limits is the mailbox's guard rails against storms: token-bucket
// rate limits on the messages an agent sends (per recipient edge and in
// all) and receives (per sender), and a circuit breaker per recipient that
// makes sends to an agent whose deliveries keep failing, or which keeps
// rejecting tasks, fail fast for a cool-down. Its settings are the
// channels.mailbox.limits section (Config); time comes from an injected
// clock.Clock. The breakers' state is saved through a store.StateStore so
// that other processes (the agents command) can show it (ReadBreakers).
package limits
