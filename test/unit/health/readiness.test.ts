import { describe, expect, it } from 'vitest';
import { failed, passed, readinessAnswer, skipped } from '../../../src/health/readiness';

describe('readinessAnswer', () => {
  it('is 200 with every check when all passed', () => {
    const checks = [passed('temporal', 'Temporal 1.28 at 127.0.0.1:7233'), passed('namespace', 'namespace "default"')];
    expect(readinessAnswer(checks)).toEqual({ statusCode: 200, body: { status: 'ready', failed: [], checks } });
  });

  it('is 503 naming each failed check and why, with the passes still shown', () => {
    const answer = readinessAnswer([passed('temporal', 'up'), failed('namespace', 'namespace "nope" does not exist'), failed('podman', 'podman info failed')]);
    expect(answer.statusCode).toBe(503);
    expect(answer.body.status).toBe('not_ready');
    expect(answer.body.failed).toEqual([
      { name: 'namespace', reason: 'namespace "nope" does not exist' },
      { name: 'podman', reason: 'podman info failed' },
    ]);
    expect(answer.body.checks.map((c) => c.status)).toEqual(['pass', 'fail', 'fail']);
  });

  it('counts a skipped check as not passed, saying it was not checked', () => {
    const answer = readinessAnswer([failed('temporal', 'cannot reach Temporal'), skipped('namespace', 'Temporal is unreachable')]);
    expect(answer.statusCode).toBe(503);
    expect(answer.body.failed).toEqual([
      { name: 'temporal', reason: 'cannot reach Temporal' },
      { name: 'namespace', reason: 'not checked: Temporal is unreachable' },
    ]);
  });

  it('is not ready when nothing was checked', () => {
    const answer = readinessAnswer([]);
    expect(answer.statusCode).toBe(503);
    expect(answer.body.failed).toEqual([{ name: 'checks', reason: 'no readiness checks are configured in this process' }]);
  });
});
