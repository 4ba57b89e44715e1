// Package fsstore is the mailbox store on a shared folder, compatible with
// nanobot's mailbox channel on disk.
//
// Layout under the root (default ~/.nanobot/mailboxes):
//
//	_registry.json            agent cards keyed by agent id (nanobot's file)
//	_registry.lock            flock taken by every registry writer
//	<agent>/inbox/            pending messages, <unix-ms>_<from>_<unique>.msg.json
//	<agent>/processed/        handled messages, moved here with the same name
//	<agent>/tmp/              staging files, linked into inbox/ when whole
//	<agent>/claimed/          messages taken by the running receiver
//	<agent>/rejected/         quarantined input, each with a .reason.json beside it
//	<agent>/.lock             flock held by the process that owns the inbox
//	<agent>/state/            the receiver's own records
//
// nanobot reads only _registry.json, inbox/ and processed/ and ignores the
// rest.
package fsstore
