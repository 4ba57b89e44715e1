// Package budget keeps an agent's model spending within bounds, as an
// agent.Hook the mailbox channel offers the agent loop (Channel.Hooks),
// which runs it in front of the others:
//
//   - a task that carries a budget (envelope.Budget in its task block) is
//     charged with every provider call of the turns that work on it; once
//     it is spent, the next call is refused with an *agent.TaskFailure
//     whose reason starts "budget exhausted", so the task fails and its
//     delegator (and the user behind it) is told why;
//   - a task delegated from inside a budgeted task carries what is left
//     of it, less what subtasks still running were handed (Keeper.Hand,
//     which the delegate tool asks; the handed budget is set aside until
//     the subtask ends), and one delegated from a conversation without a
//     budget gets the configured task budget;
//   - a subtask's final update reports what it used (task.used); the
//     delegator's channel hands it to SubtaskEnded, which charges it to
//     the parent task, so a tree of tasks spends its budget once; Spent
//     gives what a task used, for its own final update;
//   - the tasks' accounts are kept in the store beside the agent's inbox
//     (state record task-usage), so a task handed out again after a crash
//     goes on with what it spent;
//   - the agent's tokens of the day are capped: past the cap every call is
//     refused until midnight (of the keeper's clock); the count is kept in
//     the store beside the agent's inbox, so a restart does not reset it;
//   - every turn's usage is recorded (Books.RecordUsage; the channel writes
//     it to the audit log), one entry per turn, and so is every task
//     judgement's; what the turns under way have cost is kept in the store
//     (state record usage-inflight), so that a turn cut short by a crash
//     is recorded at the next start (Entry.CutShort).
package budget
