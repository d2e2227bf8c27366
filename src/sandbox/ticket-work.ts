/**
 * Which tickets' pull requests carry a ticket's work, for `service sandbox show`. The service opens a pull request
 * per workflow, named for the ticket the workflow runs (`service/<key>`, `[KEY]` in the title), and the tickets it
 * creates along the way are bookkeeping: a feature's epics and tasks are delivered in the feature's pull requests,
 * and a bug's fix Task (`Fix: <bug summary> (<repo>)`, related to the bug) is the bug's pull request in that
 * repository. Pure; sandbox-person.ts reads the tickets.
 */

export interface IssueBrief { key: string; type: string; summary: string }

/** Pull requests of `key` (in `repository` only, when set) carry the work; `note` says why for another ticket's. */
export interface WorkSource { key: string; repository?: string; note?: string }

const FIX_TASK = /^Fix: .* \(([^()\s]+\/[^()\s]+)\)$/;

/** The repository of a fix Task from its summary, or undefined for any other summary. */
export function fixTaskRepository(summary: string): string | undefined {
  return FIX_TASK.exec(summary)?.[1];
}

/**
 * The sources in the order their pull requests are shown, the most specific first: its own; for a fix Task, its
 * bug's in its repository; for a Bug, its own again per fix Task (so each shows whose fix it is); then the tickets
 * above it (epic, feature), nearest first.
 */
export function workSources(ticket: IssueBrief, ancestors: IssueBrief[], related: IssueBrief[]): WorkSource[] {
  const sources: WorkSource[] = [];
  const kind = ticket.type.toLowerCase() || 'ticket';
  if (ticket.type === 'Bug') {
    for (const task of related) {
      const repository = fixTaskRepository(task.summary);
      if (repository) sources.push({ key: ticket.key, repository, note: `the fix of ${task.key}, this bug's fix task in ${repository}` });
    }
  }
  sources.push({ key: ticket.key });
  const repository = fixTaskRepository(ticket.summary);
  if (repository) {
    for (const bug of related.filter((issue) => issue.type === 'Bug')) {
      sources.push({ key: bug.key, repository, note: `the pull request of ${bug.key}, the bug this task fixes` });
    }
  }
  for (const above of ancestors) {
    sources.push({ key: above.key, note: `the pull request of ${above.key}, the ${above.type.toLowerCase() || 'ticket'} this ${kind} belongs to` });
  }
  return sources;
}

/** Whether a pull request (head branch, title) carries the work of `key`. */
export function pullRequestOf(key: string, pull: { head: string; title: string }): boolean {
  return pull.head.toLowerCase() === `service/${key.toLowerCase()}` || pull.title.includes(`[${key.toUpperCase()}]`);
}
