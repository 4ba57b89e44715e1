// Package fakellm is a fake OpenAI-compatible chat completions server for
// tests and benchmarks that count what model calls cost: it answers
// deterministically (a user's "please sort 5 3 9 1" is delegated, a task
// is worked, an update is summarised, a judgement accepts), counts each
// request's tokens as about four bytes a token of what the model reads
// (the tool schemas, then the messages with their roles), and reports the tokens a
// provider's prompt cache would have served by OpenAI's rule (the longest
// prefix shared with an earlier request, in steps of 128 tokens, from
// 1,024 on). Every call is recorded with the agent that made it (the API
// key is the agent's id) and what it was for.
package fakellm
