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
//	<agent>/priority/         a marker per pending message of priority 1-3 (priority.go)
//	<agent>/archive/by-task/<task>/  handled messages of ended tasks (SweepTask)
//	<agent>/archive/orphan/   messages of an agent gone for good (doctor --fix)
//	manifest.jsonl            the audit log, with Options.AuditLog (package audit),
//	                          rotated to manifest.jsonl.1, .2, ...; _manifest.lock
//
// nanobot reads only _registry.json, inbox/ and processed/ and ignores the
// rest.
package fsstore
