import { describe, expect, it } from 'vitest';
import { ciAnalysisText, ciFixText, createCiStations, parseCiAnalysis, type CiScmhost } from '../../../../activities/stations/code-change/ci-stations';
import type { CheckRun, PullRequest } from '../../../../src/providers/scmhost/scmhost-types';
import type { StationInput } from '../../../../workflows/runtime/station-types';
import { stationFailureDetails } from '../../../../activities/stations/station-failure';

const pull = (number: number, headSha: string, extra: Partial<PullRequest> = {}): PullRequest => ({
  number, title: 't', body: '', state: 'open', draft: false, merged: false, headRef: 'service/fd-1', headSha, baseRef: 'main', htmlUrl: '', createdAt: '', updatedAt: '', ...extra,
} as PullRequest);
const check = (id: number, name: string, conclusion: string | null, status = 'completed'): CheckRun => ({ id, name, status, conclusion, headSha: 'x', output: { summary: `${name} said ${conclusion}` } });

function host(pulls: Record<string, PullRequest>, checks: Record<string, CheckRun[]>): CiScmhost {
  return {
    getPullRequest: async (ref, number) => pulls[`${ref.owner}/${ref.repo}#${number}`]!,
    listCheckRuns: async (_ref, sha) => checks[sha] ?? [],
  };
}

const input = (extra: Partial<StationInput> = {}): StationInput => ({
  ticket_key: 'FD-1', project_key: 'FD', issue_type: 'Feature', workflow_kind: 'feature', run_id: 'r', node: 'ci_evaluator', station: 'ci_evaluator', visit: 1,
  artifacts: {}, outputs: {}, token_budget: null, pull_requests: ['acme/api#1', 'acme/web#2'], ci: { skipped_checks: [], fix_attempts: 0 }, ...extra,
});

const evaluator = (scm: CiScmhost, max = 3) => createCiStations({ scmhost: async () => scm, ignoredChecks: ['coverage'], maxFixAttempts: max, container: {} as never }).ci_evaluator!;

describe('ci_evaluator', () => {
  const pulls = { 'acme/api#1': pull(1, 'a1'), 'acme/web#2': pull(2, 'w1') };

  it('passes when every open pull request passed', async () => {
    const result = await evaluator(host(pulls, { a1: [check(1, 'test', 'success')], w1: [check(2, 'test', 'success'), check(3, 'coverage', null, 'in_progress')] }))(input());
    expect(result.outcome).toBe('pass');
  });

  it('fixes a pull request whose checks failed even while another one still runs', async () => {
    const result = await evaluator(host(pulls, { a1: [check(1, 'test', 'failure')], w1: [] }))(input());
    expect(result.outcome).toBe('fail');
    expect(result.data!.failing).toEqual([{ pull_request: 'acme/api#1', repository: 'acme/api', head_sha: 'a1', failures: [{ name: 'test', conclusion: 'failure', summary: 'test said failure' }] }]);
  });

  it('waits while a pull request has no finished checks, and skips merged ones', async () => {
    const merged = { ...pulls, 'acme/api#1': pull(1, 'a1', { state: 'closed', merged: true }) };
    expect((await evaluator(host(pulls, { a1: [check(1, 'test', 'success')], w1: [] }))(input())).outcome).toBe('wait');
    expect((await evaluator(host(merged, { w1: [check(2, 'test', 'success')] }))(input())).outcome).toBe('pass');
  });

  it('counts /service skip-gate checks as passing', async () => {
    const result = await evaluator(host(pulls, { a1: [check(1, 'e2e (chrome)', 'failure')], w1: [check(2, 'test', 'success')] }))(input({ ci: { skipped_checks: ['E2E'], fix_attempts: 0 } }));
    expect(result.outcome).toBe('pass');
  });

  it('blocks with ci_fix_limit once the attempts are used up', async () => {
    const failing = evaluator(host(pulls, { a1: [check(1, 'test', 'failure')], w1: [] }), 3);
    const error = await failing(input({ ci: { skipped_checks: [], fix_attempts: 3 } })).catch((e: unknown) => e);
    expect(stationFailureDetails(error)).toMatchObject({ code: 'ci_fix_limit', message: expect.stringContaining('CI fix attempt limit reached (3/3): acme/api#1 (test: failure)') });
    expect((await failing(input({ ci: { skipped_checks: [], fix_attempts: 2 } }))).outcome).toBe('fail');
  });

  it('fails clearly without a pull request', async () => {
    const error = await evaluator(host({}, {}))(input({ pull_requests: [] })).catch((e: unknown) => e);
    expect(stationFailureDetails(error)).toMatchObject({ code: 'pull_request_missing' });
  });
});

describe('ciFixText', () => {
  it('tells the agent each failed check with its output and link, and the attempt', () => {
    const text = ciFixText(input(), { pull_request: 'acme/api#1', repository: 'acme/api', head_sha: 'abcdef1234567890', failures: [{ name: 'test', conclusion: 'failure', summary: '2 failed', text: 'AssertionError', url: 'https://ci/1' }] }, 2, 5);
    expect(text).toContain('attempt 2 of 5');
    expect(text).toContain('### 1. test: failure (https://ci/1)');
    expect(text).toContain('AssertionError');
    expect(text).toContain('.service/ci_fix.md');
  });

  it('hands the fix agent the analysis first when there is one', () => {
    const failing = { pull_request: 'acme/api#1', repository: 'acme/api', head_sha: 'abcdef1234567890', failures: [{ name: 'test', conclusion: 'failure' }] };
    const analysis = { summary: 'An off-by-one.', causes: [{ check: 'test', cause: 'the loop skips the last row', file: 'src/export.ts', fix: 'use <=' }] };
    const text = ciFixText(input(), failing, 1, 5, analysis);
    expect(text).toContain('## The analysis (do this)\nAn off-by-one.\n- test: the loop skips the last row (`src/export.ts`) Fix: use <=');
    expect(ciFixText(input(), failing, 1, 5, { summary: '', causes: [] })).not.toContain('## The analysis');
    expect(ciAnalysisText(input(), failing)).toContain('Do not change any file except the output file.');
  });
});

describe('parseCiAnalysis', () => {
  it('reads the diagnosis, and says what is wrong with a bad one', () => {
    expect(parseCiAnalysis('{"summary":"s","causes":[{"cause":"c"}]}')).toEqual({ summary: 's', causes: [{ check: '', cause: 'c', fix: '' }] });
    expect(parseCiAnalysis(undefined)).toEqual({ error: '.service/ci_analysis.json was not written' });
    expect(parseCiAnalysis('{"causes":[{}]}')).toMatchObject({ error: expect.stringContaining('causes.0.cause') });
  });
});

describe('parseCiAnalysis, against an agent that writes thousands of causes', () => {
  it('hands on the first 20 causes with bounded texts and says how many more there were', () => {
    const causes = Array.from({ length: 500 }, (_, i) => ({ check: 'c'.repeat(1_000), cause: `cause ${i}`, file: 'f'.repeat(1_000), fix: 'x'.repeat(5_000) }));
    const analysis = parseCiAnalysis(JSON.stringify({ summary: 's'.repeat(30_000), causes }));
    if ('error' in analysis) throw new Error(analysis.error);
    expect(analysis.causes.map((c) => c.cause)).toEqual(Array.from({ length: 20 }, (_, i) => `cause ${i}`));
    expect(analysis.causes_dropped).toBe(480);
    expect(analysis.summary).toHaveLength(2_000);
    expect(analysis.causes[0]).toMatchObject({ check: 'c'.repeat(200), file: 'f'.repeat(500), fix: 'x'.repeat(2_000) });
  });

  it('names the first problems of a file with thousands of bad causes, not all of them', () => {
    const analysis = parseCiAnalysis(JSON.stringify({ causes: Array.from({ length: 3_000 }, () => ({})) }));
    expect('error' in analysis && analysis.error.length).toBeLessThan(1_500);
    expect(analysis).toMatchObject({ error: expect.stringMatching(/; and 2990 more problems$/) });
  });
});
