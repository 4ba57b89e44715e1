// Command bridge measures what `switchboard bridge` adds to a message's
// way: the latency (p50, p99) and throughput of messages between two
// agents on one folder (direct), from a folder to an agent on NATS
// through one bridge, and from a folder to an agent on another folder
// through two bridges and a NATS server between them (folder → NATS →
// folder, two machines' setup).
//
// Usage:
//
//	go run ./bench/bridge [-n 500] [-burst 2000] [-root DIR] [-fsync]
//
// Everything runs in this process: an embedded nats-server storing under
// a fresh folder of -root, the folder stores, and the bridges (package
// internal/bridge, as the command runs them, each with its own NATS
// connection). Latency is one message at a time: the sender's Deliver to
// the receiver's Next, which returns once the message is in the
// receiver's inbox. Throughput is -burst messages sent as fast as one
// sender can, from the first send to the last receipt. docs/backends.md
// ("Bridge") gives results.
package main
