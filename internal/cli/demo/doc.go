// Package demo is `switchboard demo`: two `switchboard run` processes,
// researcher and coder, a Feishu user's question delegated from one to
// the other through the mailbox, the answer back in the chat; with
// --backend nats on a NATS server it starts (switchboard-natsd), with
// --observe traced to an OTLP receiver in this process and with their
// metrics read. The agents are processes of the running program, which
// must therefore link the host, the mailbox, its backends and the
// providers the configs name (cmd/switchboard does); the NATS server is a
// program of its own, so that no agent process links one. The command
// line (flags, usage) is package cli's.
package demo
