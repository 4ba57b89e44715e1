// Package natsstore is the mailbox store on NATS JetStream, for agents on
// several machines. It keeps the store contract the filesystem store keeps
// (the conformance suite in storetest checks both) and registers itself as
// mailbox backend "nats".
//
// Layout on the server (names configurable):
//
//	stream MAILBOX              work-queue stream, file storage, subjects:
//	  mailbox.<to>.inbox.<from>   a message from <from> to <to>
//	  mailbox.<to>.priority.<from>
//	                            the same, of priority 1 to 3 (its priority
//	                            in header Mailbox-Priority)
//	  mailbox.<agent>.dead        what <agent>'s inbox set aside, with the reason
//	consumer inbox-<agent>      durable pull consumer of mailbox.<agent>.inbox.*,
//	                            explicit acks, AckWait, MaxDeliver
//	consumer prio-<agent>       the same of mailbox.<agent>.priority.*; the
//	                            inbox takes its messages first
//	stream MAILBOX_HISTORY      limits stream (historyMaxAge, historyMaxBytes),
//	                            file storage, subjects:
//	  mailbox.<to>.history.<from> a copy of each message MAILBOX stored, made
//	                            by the server (MAILBOX's RePublish)
//	  mailbox.<agent>.audit       the audit log: batches of events, one JSON
//	                            line each (the copies are the "sent" ones)
//	  mailbox.<agent>.swept       the markers of SweepTask
//	KV mailbox-registry         agent cards, JSON as in _registry.json
//	KV mailbox-presence         one key per online agent, expiring after
//	                            offlineAfter without a heartbeat (watchable)
//	KV mailbox-state            the agents' own records
//	KV mailbox-locks            the owner of each inbox, expiring when the
//	                            owner stops renewing it
//
// The sender is a subject token, so per-agent credentials can allow an
// agent to publish only as itself and to consume only its own inbox's two
// consumers; a message whose "from" disagrees with the subject it came on
// is set aside.
// An agent id of letters, digits, '-' and '_' is used as it is; any other
// ('.' or non-ASCII letters) becomes "=" followed by its base64url form.
//
// Threads, replies owed and the audit log read the history stream
// (Browse, ReadAudit): the work-queue stream forgets a message once it is
// acknowledged. The history is a view, never what delivery relies on;
// Options.NoHistory (config history: false) does without it, and without
// the audit log. The audit entries a store writes are buffered and stored
// in batches within 25 ms, off the path of the messages: a crash loses at
// most the last 25 ms of entries (more while the server is slow to take
// them), never a message.
//
// The message id, with the recipient, is the Nats-Msg-Id, so the stream
// drops a retried publish within its duplicate window; the inbox also
// drops a copy of a message it handled recently.
package natsstore
