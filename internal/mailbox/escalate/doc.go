// Package escalate is the plumbing of escalation levels (seed 004; see
// docs/guardrails.md, "When work gets stuck"): the configuration of
// channels.mailbox.escalation (the levels a stuck task climbs, what
// triggers a climb, how long each level has), the trigger a failed
// task's reason names, the answers a person gives in the chat ("1" to
// "4" or the words), and the words of what each party is told. The
// mailbox channel drives escalations with it; the records are kept by
// the store facade (store.Escalations).
package escalate
