import { describe, expect, it } from 'vitest';
import { currentRepository } from '../../../../activities/stations/code-change/code-change-context';
import { keptFindings, parseLocalReview } from '../../../../activities/stations/code-change/implementation-stations';
import { implementTaskText, localReviewFindings, tasksOfRepository } from '../../../../activities/stations/code-change/implementation-task-text';
import type { StationInput } from '../../../../workflows/runtime/station-types';

const item = (id: number, repo: string | null, extra: Partial<{ excluded: boolean; summary: string }> = {}) => ({
  id, summary: extra.summary ?? `Task ${id}`, description: `Do thing ${id}.`, repo, acceptance_criteria: [`criterion ${id}`], excluded: extra.excluded ?? false, epic_key: 'F-2',
});

function input(outputs: Record<string, unknown>, artifacts: StationInput['artifacts'] = {}): StationInput {
  return {
    ticket_key: 'F-1', project_key: 'F', issue_type: 'Feature', workflow_kind: 'feature', run_id: 'run', node: 'implement_task', station: 'implement_task',
    visit: 1, artifacts, outputs, token_budget: null,
  };
}

describe('delivery context', () => {
  it('works on the repository the task router chose, else on params.repository', () => {
    expect(currentRepository(input({ next_repository: { repository: 'acme/web', index: 2, count: 2 } }))).toBe('acme/web');
    expect(currentRepository(input({ next_repository: { repository: null, index: 3, count: 2 } }))).toBeUndefined();
    expect(currentRepository({ ...input({}), params: { repository: 'acme/api' } })).toBe('acme/api');
  });
});

describe('implementation task text', () => {
  const outputs = { generate_tasks: { draft: { kind: 'tasks', items: [item(1, 'acme/api'), item(2, 'acme/web'), item(3, 'ACME/API', { excluded: true }), item(4, 'acme/api', { summary: 'Second api task' })] } } };

  it('gives the agent the included tasks of its repository only', () => {
    expect(tasksOfRepository(input(outputs), 'acme/api').map((t) => t.id)).toEqual([1, 4]);
    const text = implementTaskText(input(outputs, { spec: { text: 'The spec says X.', digest: 'd', version: 1, updated_at: 'now' } }), 'acme/api');
    expect(text).toContain('### Task 1: Task 1');
    expect(text).toContain('### Task 4: Second api task');
    expect(text).toContain('- criterion 4');
    expect(text).not.toContain('Task 2');
    expect(text).toContain('The spec says X.');
    expect(text).not.toContain('local review asked');
  });

  it('puts the local review findings first when the review sent the work back', () => {
    const back = { ...outputs, local_review: { verdict: 'changes_needed', repository: 'acme/api', findings: [{ file: 'src/a.ts', problem: 'null not handled', suggestion: 'check for null' }] } };
    expect(localReviewFindings(input(back), 'acme/api')).toBe('1. `src/a.ts`: null not handled (suggestion: check for null)');
    expect(implementTaskText(input(back), 'acme/api')).toContain('The local review asked for these changes');
    expect(localReviewFindings(input({ ...outputs, local_review: { verdict: 'passed', repository: 'acme/api', findings: [] } }), 'acme/api')).toBeUndefined();
  });

  it('does not hand one repository the local review findings of another', () => {
    const back = { ...outputs, local_review: { verdict: 'changes_needed', repository: 'acme/api', findings: [{ file: 'src/a.ts', problem: 'null not handled' }] } };
    expect(localReviewFindings(input(back), 'acme/web')).toBeUndefined();
    expect(implementTaskText(input(back), 'acme/web')).not.toContain('The local review asked for these changes');
  });
});

describe('parseLocalReview', () => {
  it('reads the verdict and findings the agent wrote', () => {
    expect(parseLocalReview('{"verdict":"passed"}')).toEqual({ verdict: 'passed', findings: [] });
    expect(parseLocalReview('{"verdict":"changes_needed","findings":[{"problem":"p"}]}')).toEqual({ verdict: 'changes_needed', findings: [{ problem: 'p' }] });
  });

  it('names what is wrong with a missing or malformed file', () => {
    expect(parseLocalReview(undefined)).toEqual({ error: '.service/local_review.json was not written' });
    expect(parseLocalReview('verdict: passed')).toEqual({ error: '.service/local_review.json is not JSON' });
    expect(parseLocalReview('{"verdict":"great"}')).toMatchObject({ error: expect.stringContaining('verdict') });
  });
});

describe('the findings a review keeps, against an agent that writes thousands', () => {
  it('keeps the first 30 of 1,500 findings with bounded texts and says 1,470 were dropped', () => {
    // As many as fit in the 32,000 characters the host reads of the file.
    const findings = Array.from({ length: 1_500 }, (_, i) => ({ problem: `p${i}` }));
    const parsed = parseLocalReview(JSON.stringify({ verdict: 'changes_needed', findings }));
    if ('error' in parsed) throw new Error(parsed.error);
    const kept = keptFindings(parsed.findings);
    expect(kept.findings.map((f) => f.problem)).toEqual(Array.from({ length: 30 }, (_, i) => `p${i}`));
    expect(kept.findings_dropped).toBe(1_470);
    const long = keptFindings([{ file: 'f'.repeat(30_000), problem: 'p'.repeat(30_000), suggestion: 's'.repeat(30_000) }]);
    expect(long.findings[0]).toEqual({ file: 'f'.repeat(500), problem: 'p'.repeat(2_000), suggestion: 's'.repeat(2_000) });
    expect(long).not.toHaveProperty('findings_dropped');
  });

  it('names the first problems of a file with thousands of bad findings, not all of them', () => {
    const parsed = parseLocalReview(JSON.stringify({ verdict: 'changes_needed', findings: Array.from({ length: 3_000 }, () => ({ problem: 1 })) }));
    expect('error' in parsed && parsed.error.length).toBeLessThan(1_500);
    expect(parsed).toMatchObject({ error: expect.stringMatching(/findings\.0\.problem .*; and 2990 more problems$/) });
  });
});
