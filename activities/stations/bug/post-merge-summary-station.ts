import type { TrackerIssue } from '../../../src/providers/tracker/tracker-types';
import type { EffectIntent, StationActivity, StationInput } from '../../../workflows/runtime/station-types';
import { isDone } from '../code-change/completion-stations';
import { childrenOf, issueEffectName, type CodeChangeTracker } from '../code-change/pull-request-stations';
import { parseStationInput } from '../station-input';
import { releaseNoteLines, releaseNoteOf, type ReleaseNote } from './release-note';

const CLOSED = 'Closed';

export interface PostMergeSummary {
  ticketKey: string;
  summary: string;
  note: ReleaseNote | undefined;
  pullRequests: readonly string[];
  /** Every fix Task of the bug, whether this station closes it or it was done already. */
  tasks: readonly string[];
}

/**
 * The summary comment after the merge (REFERENCE "Bug analysis"): the release note, the merged pull requests and the
 * fix Tasks. It names every Task, not only those still open, so a rerun after a crash asks for the same text. Pure.
 */
export function postMergeSummaryText(summary: PostMergeSummary): string {
  const note = summary.note ? releaseNoteLines(summary.note) : [];
  return [
    `✅ The fix for ${summary.ticketKey} is delivered (its pull requests approved or merged): ${summary.summary.trim().replace(/[.!?]+$/, '')}.`,
    ...(note.length ? ['', '### Release note', '', ...note] : []),
    ...(summary.pullRequests.length ? ['', '### Pull requests', '', ...summary.pullRequests.map((ref) => `- ${ref}`)] : []),
    ...(summary.tasks.length ? ['', '### Tasks closed', '', summary.tasks.join(', ')] : []),
  ].join('\n');
}

const close = (key: string): EffectIntent => ({ name: issueEffectName('close', key), operation: { kind: 'tracker.transition', issue_key: key, target: CLOSED } });

/**
 * post_merge_summary: the summary comment on the bug, then its fix Tasks (found by the parent label decompose_plan
 * set) and the bug itself move to "Closed". Each reads the tracker afresh, so a repeat closes only what is still open.
 */
export function createPostMergeSummaryStation(deps: { tracker: CodeChangeTracker }): StationActivity {
  return async (raw) => {
    const input: StationInput = parseStationInput(raw);
    const [bug, children] = await Promise.all([deps.tracker.getIssue(input.ticket_key), childrenOf(deps.tracker, input)]);
    const tasks = children.filter((issue: TrackerIssue) => issue.issueType === 'Task');
    const open = tasks.filter((task) => !isDone(task));
    const body = postMergeSummaryText({ ticketKey: input.ticket_key, summary: bug.summary, note: releaseNoteOf(input), pullRequests: input.pull_requests ?? [], tasks: tasks.map((t) => t.key) });
    const effects: EffectIntent[] = [
      { name: 'post_merge_summary', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body } },
      ...open.map((task) => close(task.key)),
      ...(isDone(bug) ? [] : [close(input.ticket_key)]),
    ];
    return {
      outcome: 'done', effects,
      data: { closed: open.map((t) => t.key), already_done: tasks.length - open.length, bug_closed: !isDone(bug) },
      summary: `summary posted; ${open.length} task${open.length === 1 ? '' : 's'} and ${isDone(bug) ? 'no bug (already done)' : input.ticket_key} to ${CLOSED}`,
    };
  };
}
