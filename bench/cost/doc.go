// Command cost measures what one delegated task costs in model calls and
// tokens (issue 29): a Feishu user's "please sort 5 3 9 1" to researcher,
// which delegates it to coder through the mailbox, both on an
// OpenAI-compatible provider. The provider is a fake server
// (internal/fakellm) that answers deterministically, counts every request
// and its tokens, and reports the tokens a prompt cache would serve by
// OpenAI's rule. Two switchboard hosts run in this process on one mailbox
// folder, as `switchboard run` runs them; each scenario is a fresh pair.
//
// Beside them it runs nanobot's own flow for the same request: the main
// agent calls its spawn tool, a subagent does the work, and the result is
// announced back into the main agent's turn (nanobot/agent/subagent.py,
// nanobot/agent/tools/spawn.py, and the runner's injection of the
// announcement after the tool results). nanobot cannot be installed here,
// so its request sequence is reproduced call by call against the same
// fake server (nanobot.go says what each call carries).
//
// Usage:
//
//	go run ./bench/cost [-prompt-bytes 6000] [-v]
//
// docs/cost.md gives the results.
package main
