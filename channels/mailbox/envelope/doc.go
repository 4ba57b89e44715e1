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
// Every message on the way in and out is decoded and encoded, so both are
// done by hand for the shapes switchboard and nanobot write (decodeFast,
// encodeCompactFast), several times cheaper than through reflection. The
// hand-written paths give up on anything they do not fully understand
// (a member given twice, a name differing from a field's only in case, an
// odd number, a value encoding/json refuses) and leave it to encoding/json,
// which stays the reference: for every input the result is the same
// message, the same error or the same bytes (FuzzDecodeFast, FuzzEncodeFast).
// They are kept because they pay for themselves end to end (docs/codec.md);
// building with -tags envelope_stdjson turns them off (codec_select.go), so
// that the whole module runs on encoding/json alone and the comparison can
// be made again.
package envelope
