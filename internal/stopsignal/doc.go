// Package stopsignal catches the signals that ask a program to stop
// (SIGINT, SIGTERM) from the first moments of the program: its
// initialiser runs as soon as os/signal's has, before the initialisers
// of the big packages a program links (the LLM and chat SDKs, NATS),
// which take a while on a loaded machine. Without it a stop asked for
// then takes the signal's default action, and the process dies on the
// spot instead of stopping cleanly. Import it (blank is enough) from the
// main package, and take its Context where signal.NotifyContext would be.
//
// A program started only to print its version (Skip) catches nothing:
// it needs no signal handling, whose set-up would be a good part of its
// start.
package stopsignal
