import type { TrackerIssue } from '../../../src/providers/tracker/tracker-types';
import type { EffectIntent, StationActivity } from '../../../workflows/runtime/station-types';
import { parseStationInput } from '../station-input';
import { childrenOf, issueEffectName, type CodeChangeTracker } from './pull-request-stations';

const CLOSED = 'Closed';

/** Done in the tracker's sense: the status category `done`, or a status named like it when the category is unknown. */
export function isDone(issue: Pick<TrackerIssue, 'status' | 'statusCategory'>): boolean {
  if (issue.statusCategory) return issue.statusCategory === 'done';
  return /^(done|closed|resolved)$/i.test(issue.status);
}

/** Epics whose every child task is done (after `closing` are closed too) and which are not done themselves. Pure. */
export function epicsToClose(children: readonly TrackerIssue[], closing: ReadonlySet<string> = new Set()): TrackerIssue[] {
  const done = (issue: TrackerIssue) => isDone(issue) || closing.has(issue.key);
  return children.filter((epic) => epic.issueType === 'Epic' && !done(epic)).filter((epic) => {
    const tasks = children.filter((issue) => issue.parentKey === epic.key);
    return tasks.length > 0 && tasks.every(done);
  });
}

const close = (key: string): EffectIntent => ({ name: issueEffectName('close', key), operation: { kind: 'tracker.transition', issue_key: key, target: CLOSED } });

/**
 * After the merge (REFERENCE "Tracker conventions"): the feature's tasks move to "Closed", an epic closes when all
 * its children are done, then the feature closes with a completion comment. Each reads the tracker afresh, so a
 * repeat closes only what is still open, and a task a person reopened keeps its epic open.
 */
export function createCompletionStations(deps: { tracker: CodeChangeTracker }): Record<'complete_tasks' | 'aggregate_epic_status' | 'aggregate_feature_status', StationActivity> {
  return {
    complete_tasks: async (raw) => {
      const input = parseStationInput(raw);
      const tasks = (await childrenOf(deps.tracker, input)).filter((issue) => issue.issueType === 'Task');
      const open = tasks.filter((task) => !isDone(task));
      return { outcome: 'done', effects: open.map((task) => close(task.key)), data: { closed: open.map((t) => t.key), already_done: tasks.length - open.length }, summary: `${open.length} task${open.length === 1 ? '' : 's'} to ${CLOSED}` };
    },
    aggregate_epic_status: async (raw) => {
      const input = parseStationInput(raw);
      const children = await childrenOf(deps.tracker, input);
      const epics = epicsToClose(children);
      const open = children.filter((issue) => issue.issueType === 'Epic' && !isDone(issue) && !epics.includes(issue));
      return { outcome: 'done', effects: epics.map((epic) => close(epic.key)), data: { closed: epics.map((e) => e.key), still_open: open.map((e) => e.key) }, summary: `${epics.length} epic${epics.length === 1 ? '' : 's'} closed${open.length ? `, ${open.length} still open` : ''}` };
    },
    aggregate_feature_status: async (raw) => {
      const input = parseStationInput(raw);
      const [feature, children] = await Promise.all([deps.tracker.getIssue(input.ticket_key), childrenOf(deps.tracker, input)]);
      const openEpics = children.filter((issue) => issue.issueType === 'Epic' && !isDone(issue));
      const prs = input.pull_requests ?? [];
      if (openEpics.length > 0) {
        const body = `The pull requests are merged, but ${openEpics.map((e) => e.key).join(', ')} ${openEpics.length === 1 ? 'is' : 'are'} still open, so ${input.ticket_key} stays open. Close ${openEpics.length === 1 ? 'it' : 'them'} when the remaining work is done.`;
        return { outcome: 'done', effects: [{ name: 'completion_comment', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body } }], data: { closed: false, open_epics: openEpics.map((e) => e.key) }, summary: `${input.ticket_key} left open: ${openEpics.length} epic(s) open` };
      }
      const lines = [
        `✅ ${input.ticket_key} is complete: ${feature.summary}.`,
        ...(prs.length ? ['', 'Delivered in:', ...prs.map((ref) => `- ${ref}`)] : []),
        ...(children.length ? ['', `Closed: ${children.map((c) => c.key).join(', ')}.`] : []),
      ];
      const effects: EffectIntent[] = [{ name: 'completion_comment', operation: { kind: 'tracker.comment', issue_key: input.ticket_key, body: lines.join('\n') } }];
      if (!isDone(feature)) effects.push(close(input.ticket_key));
      return { outcome: 'done', effects, data: { closed: true }, summary: `${input.ticket_key} closed with a completion comment` };
    },
  };
}
