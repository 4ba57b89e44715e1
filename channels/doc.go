// Package channels defines how chat platforms plug into switchboard.
//
// A Channel is small: a name, Start, Stop and Send. Abilities that only some
// channels have are optional one-method interfaces found by type assertion
// (AllowLister). Base gives every channel nanobot's allowFrom rule and a
// helper that checks the sender and publishes the inbound message.
//
// Channel types register a Factory in a Registry (usually the default one,
// from an init function, like database/sql drivers); each factory decodes and
// validates its own config section. The Manager builds the enabled channels
// from config, starts them, dispatches every outbound message on the bus to
// the channel it names (retrying errors the channel marks temporary), and
// stops them all on shutdown.
package channels
