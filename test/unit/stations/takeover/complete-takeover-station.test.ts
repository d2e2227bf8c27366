import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../../activities/stations/planning/document-stations';
import { createCompleteTakeoverStation, plannedLines, takeoverSummaryText } from '../../../../activities/stations/takeover/complete-takeover-station';
import type { TrackerIssue } from '../../../../src/providers/tracker/tracker-types';
import type { StationInput } from '../../../../workflows/runtime/station-types';

const ticket = (extra: Partial<TrackerIssue> = {}): TrackerIssue => ({
  id: '1', key: 'TT-1', projectKey: 'TT', summary: 'Rate limit the export', description: '', labels: ['service:managed'], issueType: 'Task', status: 'In Progress', statusCategory: 'indeterminate', created: '', updated: '', ...extra,
});

const PLAN = ['# Plan', ...Array.from({ length: 7 }, (_, i) => `${i + 1}. Step ${i + 1} (repo: acme/api)`)].join('\n');

function input(outputs: Record<string, unknown> = {}, plan = PLAN): StationInput {
  const digest = sha256(plan);
  return {
    ticket_key: 'TT-1', project_key: 'TT', issue_type: 'Task', workflow_kind: 'task_takeover', run_id: 'run-1', node: 'complete_task_takeover', station: 'complete_task_takeover',
    visit: 1, artifacts: { plan: { text: plan, digest, version: 1, updated_at: '', approved: { digest, at: '' } } }, outputs, token_budget: null, pull_requests: ['acme/api#4'],
  };
}

describe('complete_task_takeover', () => {
  it('posts what was planned and the pull requests, then closes the ticket', async () => {
    const result = await createCompleteTakeoverStation({ tracker: { getIssue: async () => ticket() } })(input());
    expect(result.outcome).toBe('done');
    expect(result.effects!.map((e) => e.name)).toEqual(['takeover_summary', 'close_tt_1']);
    expect(result.effects![1]!.operation).toEqual({ kind: 'tracker.transition', issue_key: 'TT-1', target: 'Closed' });
    expect((result.effects![0]!.operation as { body: string }).body.split('\n')).toEqual([
      '✅ TT-1 is done: the pull request was approved or merged.',
      '', '### What was planned', '',
      'The plan had 7 steps:', '- Step 1 (repo: acme/api)', '- Step 2 (repo: acme/api)', '- Step 3 (repo: acme/api)', '- Step 4 (repo: acme/api)', '- Step 5 (repo: acme/api)', '- … and 2 more',
      '', '### Pull requests', '', '- acme/api#4',
    ]);
  });

  it('warns when the qualitative review still asked for changes at its cap', () => {
    const text = takeoverSummaryText(input({ run_qualitative_review: { verdict: 'changes_needed', repository: 'acme/api', findings: [{ problem: 'no test' }] } }));
    expect(text).toContain('⚠️ The qualitative review of acme/api still asked for changes after two rounds');
    expect(takeoverSummaryText(input({ run_qualitative_review: { verdict: 'passed', repository: 'acme/api', findings: [] } }))).not.toContain('⚠️');
  });

  it('quotes the first lines of a plan that tags no step, and does not close a ticket that is done', async () => {
    expect(plannedLines('Intro\n\nDo a thing\nThen another')).toEqual(['The plan began:', '> Intro', '> Do a thing', '> Then another']);
    expect(plannedLines(undefined)).toEqual([]);
    const result = await createCompleteTakeoverStation({ tracker: { getIssue: async () => ticket({ status: 'Done', statusCategory: 'done' }) } })(input());
    expect(result.effects!.map((e) => e.name)).toEqual(['takeover_summary']);
  });
});
