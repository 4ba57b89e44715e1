// Package keys is who signs for an agent and who is believed: each
// mailbox agent's ed25519 signing key (an nkeys user key), where it is
// kept, the key pinned for each agent (trust on first use, shared through
// the store so that every agent of a team holds the same pin), and the
// check a receiver makes of every message before any rule that trusts its
// sender (Checker).
//
// The signature itself, its canonical form and the operator's vouching
// statement are the wire format's (package envelope, sign.go); this
// package decides which key a signature must be made with.
//
// Where things are (docs/format.md, "Keys and pins"):
//
//   - an agent's own key: channels.mailbox.keyFile when set; else, on NATS
//     with credentials or an nkey seed file of the agent's own, that key;
//     else, on a store whose agent records only the user can read (the
//     folder: <root>/<agent>/state/signing-key.json, 0600), its record
//     signing-key; else a file DefaultFile(agent)
//     (~/.nanobot/keys/<agent>.nk), 0600 in a folder 0700;
//   - the pin of an agent: its record "pin" (<root>/<agent>/state/pin.json,
//     NATS key <agent>.pin of the state bucket), created by the agent at
//     its first start or by the first receiver that sees its card's key,
//     replaced only by `switchboard agents trust` or a change the
//     operator key vouched for;
//   - the operator's vouching: the record "key-signature" of the agent,
//     which `switchboard keys sign-card` writes and the agent copies into
//     its card (key_signature).
package keys
