// Package demo is `switchboard demo`: two `switchboard run` processes,
// researcher and coder, a Feishu user's question delegated from one to
// the other through the mailbox, the answer back in the chat; with
// --backend nats on a NATS server it starts (switchboard-natsd), with
// --observe traced to an OTLP receiver in this process and with their
// metrics read. It links the OTLP receiver and a Prometheus text parser,
// so only switchboard-full links it (see cli.Extras); the command line
// (flags, usage) is package cli's.
package demo
