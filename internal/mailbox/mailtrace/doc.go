// Package mailtrace is the tracing of mailbox messages: the producer span
// "send <agent>" of a message put in an inbox, which writes its W3C trace
// context into the message (traceparent, tracestate), and the consumer
// span "receive <agent>" of a message taken from one, a child of that
// context (a message without one, as nanobot writes them, starts a new
// trace). The mailbox channel makes its spans with it, and so do the
// command line and the console where they deliver messages themselves,
// so that every message switchboard puts in a mailbox joins a trace.
//
// Without a TracerProvider installed (tracing off) a span costs next to
// nothing; a traceparent in ctx is still written into the message, so a
// caller's trace goes on through it.
package mailtrace
