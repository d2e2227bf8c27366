import { describe, expect, it } from 'vitest';
import { ciVerdict, pipelineCheckRuns } from '../../../../activities/stations/code-change/ci-verdict';
import type { CheckRun } from '../../../../src/providers/scmhost/scmhost-types';

let id = 0;
const run = (name: string, status: string, conclusion: string | null, output: CheckRun['output'] = {}): CheckRun => ({
  id: ++id, name, status, conclusion, headSha: 'abc', output, detailsUrl: `https://ci.example/${name}`,
});
const none = { ignored: [], skipped: [] };

describe('ciVerdict', () => {
  it('waits while no check has reported or one still runs', () => {
    expect(ciVerdict([], none)).toMatchObject({ verdict: 'wait', reason: 'no checks reported yet' });
    expect(ciVerdict([run('build', 'completed', 'failure'), run('lint', 'in_progress', null)], none)).toMatchObject({ verdict: 'wait', pending: ['lint'] });
  });

  it('passes on success, skipped and neutral', () => {
    expect(ciVerdict([run('build', 'completed', 'success'), run('docs', 'completed', 'skipped'), run('x', 'completed', 'neutral')], none))
      .toEqual({ verdict: 'pass', passed: ['build', 'docs', 'x'], skipped: [] });
  });

  it('fails with each failed check, its output cut and its link', () => {
    const verdict = ciVerdict([run('build', 'completed', 'success'), run('test', 'completed', 'failure', { title: '2 failed', text: 'x'.repeat(10_000) }), run('e2e', 'completed', 'timed_out')], none);
    expect(verdict.verdict).toBe('fail');
    if (verdict.verdict !== 'fail') return;
    expect(verdict.failures.map((f) => [f.name, f.conclusion])).toEqual([['e2e', 'timed_out'], ['test', 'failure']]);
    expect(verdict.failures[1]).toMatchObject({ title: '2 failed', url: 'https://ci.example/test' });
    expect(verdict.failures[1]!.text).toHaveLength(4000);
  });

  it('ignores CI_IGNORED_CHECKS entirely and counts skip-gate checks as passing, by case-insensitive substring', () => {
    const runs = [run('build', 'completed', 'success'), run('Flaky E2E (chrome)', 'completed', 'failure'), run('coverage/upload', 'in_progress', null)];
    expect(ciVerdict(runs, { ignored: ['coverage'], skipped: ['e2e'] })).toEqual({ verdict: 'pass', passed: ['build'], skipped: ['Flaky E2E (chrome)'] });
    expect(ciVerdict([run('coverage', 'in_progress', null)], { ignored: ['coverage'], skipped: [] })).toMatchObject({ verdict: 'wait', reason: 'no checks reported yet' });
  });

  it('judges a check that ran again by its latest run', () => {
    expect(ciVerdict([run('test', 'completed', 'failure'), run('test', 'completed', 'success')], none)).toMatchObject({ verdict: 'pass', passed: ['test'] });
  });
});

describe('GitLab pipelines as checks', () => {
  const pipeline = (pid: number, status: string) => ({ id: pid, sha: 'abc', status, webUrl: `https://gitlab.example/p/-/pipelines/${pid}` });

  it('judges the newest pipeline of the commit: a failed one after a success fails, with its link', () => {
    const verdict = ciVerdict(pipelineCheckRuns([pipeline(7, 'success'), pipeline(9, 'failed')]), none);
    expect(verdict).toMatchObject({ verdict: 'fail', failures: [{ name: 'pipeline', conclusion: 'failure', url: 'https://gitlab.example/p/-/pipelines/9' }] });
  });

  it('waits for a running or manual pipeline and for a commit without one; passes a success or skipped one', () => {
    expect(ciVerdict(pipelineCheckRuns([]), none)).toMatchObject({ verdict: 'wait', reason: 'no checks reported yet' });
    expect(ciVerdict(pipelineCheckRuns([pipeline(3, 'running')]), none)).toMatchObject({ verdict: 'wait', pending: ['pipeline'] });
    expect(ciVerdict(pipelineCheckRuns([pipeline(4, 'manual')]), none)).toMatchObject({ verdict: 'wait' });
    expect(ciVerdict(pipelineCheckRuns([pipeline(5, 'success')]), none)).toMatchObject({ verdict: 'pass', passed: ['pipeline'] });
    expect(ciVerdict(pipelineCheckRuns([pipeline(6, 'skipped')]), none)).toMatchObject({ verdict: 'pass' });
  });

  it('lets /service skip-gate pipeline pass a failed pipeline', () => {
    expect(ciVerdict(pipelineCheckRuns([pipeline(8, 'canceled')]), { ignored: [], skipped: ['pipeline'] })).toMatchObject({ verdict: 'pass', skipped: ['pipeline'] });
  });
});
