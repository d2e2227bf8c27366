import { describe, expect, it } from 'vitest';
import { createPostMergeSummaryStation, postMergeSummaryText } from '../../../../activities/stations/bug/post-merge-summary-station';
import { releaseNoteOf } from '../../../../activities/stations/bug/release-note';
import type { RcaReport } from '../../../../activities/stations/bug/rca-report';
import type { CodeChangeTracker } from '../../../../activities/stations/code-change/pull-request-stations';
import type { TrackerIssue } from '../../../../src/providers/tracker/tracker-types';
import type { StationInput } from '../../../../workflows/runtime/station-types';

const issue = (key: string, issueType: string, extra: Partial<TrackerIssue> = {}): TrackerIssue => ({
  id: key, key, projectKey: 'BUG', summary: key, description: '', labels: [], issueType, status: 'To Do', statusCategory: 'new', created: '', updated: '', ...extra,
});

const RCA: RcaReport = {
  summary: 'save() dereferences a missing order.',
  code_location: { file: 'src/orders/save.ts', function: 'save', line_range: '40-52' },
  mechanism: 'The order lookup returns undefined for drafts and save() reads .id from it.',
  trigger_to_symptom: 'Saving a draft order crashes the page.',
  hypothesis_log: [], introduced_in: 'abc123', confidence: { level: 'high', percentage: 90, rationale: 'reproduced' }, reproducibility: 'always',
  options: [{ title: 'Guard the lookup', description: 'd', tradeoffs: 't' }, { title: 'Create drafts eagerly', description: 'd', tradeoffs: 't' }],
};

const NOTE = { component: 'Orders API', fix: 'Saving a draft order no longer fails.', root_cause: 'A missing order was read.', impact: 'Everyone saving drafts.' };

function input(outputs: Record<string, unknown>, extra: Partial<StationInput> = {}): StationInput {
  return {
    ticket_key: 'BUG-1', project_key: 'BUG', issue_type: 'Bug', workflow_kind: 'bug', run_id: 'run-1', node: 'post_merge_summary', station: 'post_merge_summary',
    visit: 1, artifacts: {}, outputs, token_budget: null, pull_requests: ['acme/api#7', 'acme/web#3'], ...extra,
  };
}

function tracker(bug: TrackerIssue, children: TrackerIssue[]): CodeChangeTracker & { jql: string[] } {
  const jql: string[] = [];
  return { jql, getIssue: async () => bug, searchAllIssues: async (query: string) => { jql.push(query); return children; } };
}

describe('post_merge_summary', () => {
  const children = [
    issue('BUG-2', 'Task', { labels: ['service:parent:BUG-1', 'repo:acme/api'] }),
    issue('BUG-3', 'Task', { labels: ['service:parent:BUG-1', 'repo:acme/web'], status: 'Done', statusCategory: 'done' }),
  ];

  it('posts the release note, the pull requests and the Tasks, then closes the open Tasks and the bug', async () => {
    const fake = tracker(issue('BUG-1', 'Bug', { summary: 'Crash on save.' }), children);
    const result = await createPostMergeSummaryStation({ tracker: fake })(input({ plan_bug_fix: { option: 1, repositories: [], unknown_repositories: [], release_note: NOTE } }));
    expect(fake.jql[0]).toContain('labels = "service:parent:BUG-1"');
    expect(result.outcome).toBe('done');
    expect(result.effects!.map((e) => e.name)).toEqual(['post_merge_summary', 'close_bug_2', 'close_bug_1']);
    expect(result.effects!.slice(1).map((e) => e.operation)).toEqual([
      { kind: 'tracker.transition', issue_key: 'BUG-2', target: 'Closed' },
      { kind: 'tracker.transition', issue_key: 'BUG-1', target: 'Closed' },
    ]);
    const body = (result.effects![0]!.operation as { body: string }).body;
    expect(body.split('\n')).toEqual([
      '✅ The fix for BUG-1 is delivered (its pull requests approved or merged): Crash on save.',
      '', '### Release note', '',
      '- **Component:** Orders API', '- **Fix:** Saving a draft order no longer fails.', '- **Root cause:** A missing order was read.', '- **Impact:** Everyone saving drafts.',
      '', '### Pull requests', '', '- acme/api#7', '- acme/web#3',
      '', '### Tasks closed', '', 'BUG-2, BUG-3',
    ]);
    expect(result.data).toEqual({ closed: ['BUG-2'], already_done: 1, bug_closed: true });
  });

  it('leaves a bug that is done already, and closes nothing twice', async () => {
    const done = children.map((c) => ({ ...c, status: 'Closed', statusCategory: 'done' }));
    const result = await createPostMergeSummaryStation({ tracker: tracker(issue('BUG-1', 'Bug', { status: 'Closed', statusCategory: 'done' }), done) })(input({}));
    expect(result.effects!.map((e) => e.name)).toEqual(['post_merge_summary']);
  });

  it('falls back to the analysis for a release note the fix plan did not write', () => {
    expect(releaseNoteOf(input({ analyze_bug: { rca: RCA, repository: 'acme/api', other_repositories: [], attempts: 1 }, plan_bug_fix: { option: 2 } }))).toEqual({
      component: 'src/orders/save.ts', fix: 'Create drafts eagerly', root_cause: RCA.summary, impact: RCA.trigger_to_symptom,
    });
    const partial = releaseNoteOf(input({ analyze_bug: { rca: RCA }, plan_bug_fix: { option: 1, release_note: { ...NOTE, impact: ' ' } } }));
    expect(partial).toEqual({ ...NOTE, impact: RCA.trigger_to_symptom });
    expect(releaseNoteOf(input({}))).toBeUndefined();
    expect(postMergeSummaryText({ ticketKey: 'BUG-1', summary: 'x', note: undefined, pullRequests: [], tasks: [] })).toBe('✅ The fix for BUG-1 is delivered (its pull requests approved or merged): x.');
  });
});
