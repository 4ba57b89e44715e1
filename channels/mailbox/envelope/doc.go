// Package envelope defines the mailbox's wire format: the message JSON and
// the agent card that switchboard shares with nanobot's mailbox on disk.
//
// Field names are snake_case, exactly as nanobot writes them. Readers accept
// nanobot's messages with any optional key missing or null (ttl, trace,
// task, callback, reply_to, metadata); writers always write ttl as a number,
// trace and content.parts as lists and metadata as an object, and omit
// callback when there is none, because nanobot's reader crashes on nulls
// there. switchboard's own additions (thread_id, subject, expects_reply,
// priority, hop_count) are extra keys that nanobot ignores.
//
// Decode is strict about what it reads: the size is capped before decoding,
// every value must have the right type, required fields must be present and
// agent ids must be safe to use in paths. Errors wrap ErrMalformed or
// ErrTooLarge so callers can quarantine the input with a reason.
//
// Messages are encoded and decoded by encoding/json, through the struct
// tags of Message and its blocks, Part's MarshalJSON and Time's methods.
// Before decoding, the JSON is checked in one pass by jsontext (the syntax
// layer of encoding/json/v2, from github.com/go-json-experiment/json,
// which Go ships as encoding/json/jsontext under GOEXPERIMENT=jsonv2): an object that names a member twice is
// refused with an error naming it, where encoding/json alone would keep
// the last value silently (checkSyntax). docs/codec.md gives the figures
// of this codec beside the hand-written one it replaced.
package envelope
