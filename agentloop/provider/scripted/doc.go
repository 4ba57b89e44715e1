// Package scripted is a deterministic agentloop.Provider that needs no
// network and no API key: the default provider, so the multi-agent demo
// runs anywhere. It reads the last message of the request and acts on a
// few phrases:
//
//   - "ask <agent> to <work>" and "ask someone who can <capability> to
//     <work>" call the delegate_task tool, then confirm: "I asked coder to
//     sort 5 3 9 1 (task task_…). I'll tell you when it's done."; work
//     that ends in "within 30 seconds" (or minutes, hours) gets that
//     deadline; a task from another agent worded so is passed on the
//     same way (a chain: user → lead → coder → reviewer);
//   - "list agents" and "who is online" call list_agents, then summarise;
//   - a task or message from another agent (a bus.Note), and
//     a user message that is itself work, is done for real (see Work):
//     "sort 5 3 9 1" → "1 3 5 9", "count words in a b c" → "3",
//     "compute (1+2)*3" → "9"; work it cannot do is an error, which fails
//     the task visibly;
//   - a task_update routed to the user's conversation is told to the user:
//     "coder finished: 1 3 5 9", "coder accepted the task and is working
//     on it.", "coder could not do it: <reason>";
//   - anything else gets a short help text.
//
// As a TaskJudge it accepts a task when its verb maps to a capability the
// agent lists (sort → "sorting", count → "counting", compute and
// calculate → "arithmetic"; "*" stands for every capability), and a task
// that asks to pass work on ("ask <agent> to <work>"); it declines any
// other with "no capability for <verb>".
package scripted
