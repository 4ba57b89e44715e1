// Package fsstore is the mailbox store on a shared folder, compatible with
// nanobot's mailbox channel on disk.
//
// Layout under the root (default ~/.nanobot/mailboxes):
//
//	_registry.json            agent cards keyed by agent id (nanobot's file)
//	_registry.lock            flock held by whoever rewrites the registry (a merge)
//	_registry.queue/          card updates waiting to be merged, <agent>@<seq>.json
//	                          (registry_queue.go)
//	_registry.locks/          each card's writers' flock, <agent>.lock
//	_turn.<duty>              the time of a shared duty's last turn (heartbeat.go)
//	_watch.lock, _watch.sock  the root's shared watcher: flock held by the process
//	                          that watches for all, and the socket it serves
//	                          (watch_share.go)
//	<agent>/inbox/            pending messages, <unix-ms>_<from>_<unique>.msg.json
//	<agent>/processed/        handled messages, moved here with the same name
//	<agent>/tmp/              staging files, linked into inbox/ when whole
//	<agent>/claimed/          claims of receivers before the claim log (read at start only)
//	<agent>/rejected/         quarantined input, each with a .reason.json beside it
//	<agent>/.lock             flock held by the process that owns the inbox
//	<agent>/state/            the receiver's own records; .claims is the claim log
//	<agent>/priority/         a marker per pending message of priority 1-3 (inbox_next.go)
//	<agent>/archive/by-task/<task>/  handled messages of ended tasks (SweepTask)
//	<agent>/archive/orphan/   messages of an agent gone for good (doctor --fix)
//	manifest.jsonl            the audit log, with Options.AuditLog (package audit),
//	                          rotated to manifest.jsonl.1, .2, ...; _manifest.lock
//
// nanobot reads only _registry.json, inbox/ and processed/ and ignores the
// rest.
//
// # Durability and group commit
//
// Unless Options.NoSync, Deliver fsyncs the staging file and the inbox
// folder before it returns; Delivers of one Store linking into the same
// inbox at the same time share the folder fsync (group commit,
// deliver.go), and a failed one is the error of each.
//
// A receiver claims a message by appending a line to its claim log
// (state/.claims: the file name and the time) before it hands the message
// out; the file stays in inbox/ until it is acknowledged or set aside, so
// a message costs one rename, not two (see claimsName). An Inbox holds
// inbox/ and processed/ open, reads a message with openat and one fstat,
// and moves it relative to them with one no-replace rename (renameat2
// RENAME_NOREPLACE on linux; an fstatat and a renameat elsewhere, which
// the inbox lock keeps free of races). Claims are not synced: a crash
// that undoes one leaves the message waiting as if never taken.
// Acknowledgements are made
// durable by group commit (commit.go): Ack moves the file and writes the
// journal line, then joins the open batch; a commit fsyncs processed/
// and the journal once for the whole batch, writes the batch's audit
// lines in one write and reports every Ack of the batch done. A batch
// closes commitWindow (1 ms) after its first acknowledgement, at
// commitBatch (256), or at once when someone waits for it: Ack (so a
// lone Ack costs what it did before), Quarantine, Close. AckPipelined
// (driver.PipelinedAcker) returns before the commit, reporting durability
// later, so the window costs its caller no time: a busy receiver pays one
// fsync per folder per millisecond or so instead of one per message or
// two (at most maxUnsynced acknowledgements wait). Close waits for every
// commit. What
// was reported durable survives a machine crash; what was not comes back
// (at-least-once), and the dedup journal drops it if its line was synced.
//
// The audit log's other lines are queued (audit.Writer.Enqueue) and
// written in batches (those queued during a write about a millisecond
// later, together), with a hand-written encoder. A message file is read with one read of the size
// fstat gave. A scan of a large inbox keeps a quarter of what it found
// (keepFor), so a backlog costs a few scans of the folder, not one per
// scanBatch messages.
package fsstore
