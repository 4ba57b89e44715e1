// Package budget keeps an agent's model spending within bounds, as an
// agentloop.Hook the host installs in front of the others:
//
//   - a task that carries a budget (envelope.Budget in its task block) is
//     charged with every provider call of the turns that work on it; once
//     it is spent, the next call is refused with an *agentloop.TaskFailure
//     whose reason starts "budget exhausted", so the task fails and its
//     delegator (and the user behind it) is told why;
//   - a task delegated from inside a budgeted task carries what is left
//     (Keeper.Left, which the delegate tool asks), and one delegated from
//     a conversation without a budget gets the configured task budget;
//   - the agent's tokens of the day are capped: past the cap every call is
//     refused until midnight (of the keeper's clock); the count is kept in
//     the store beside the agent's inbox, so a restart does not reset it;
//   - every turn's usage is recorded (Books.RecordUsage; the host writes
//     it to the audit log), one entry per turn, and so is every task
//     judgement's.
package budget
