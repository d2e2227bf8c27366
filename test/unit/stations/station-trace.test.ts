import { describe, expect, it } from 'vitest';
import { ciStatusOf, stationTraceContext } from '../../../activities/stations/station-trace';
import { stationTrigger } from '../../../workflows/runtime/station-trigger';

describe('the trace attributes of a station', () => {
  const base = { ticket_key: 'FD-7', issue_type: 'Feature', project_key: 'FD', station: 'generate_prd', outputs: {}, params: {}, pull_requests: [] };

  it('names the ticket, its type and project, and the step', () => {
    expect(stationTraceContext(base)).toEqual({ ticket_key: 'FD-7', ticket_type: 'Feature', project_id: 'FD', workflow_step: 'generate_prd' });
  });

  it('adds the repository the step works on and its pull request (GitHub or GitLab)', () => {
    const input = { ...base, station: 'sync_pr_description', outputs: { next_repository: { repository: 'platform/billing', index: 1, count: 2 } }, pull_requests: ['acme/api#4', 'platform/billing!9'] };
    expect(stationTraceContext(input)).toMatchObject({ repo: 'platform/billing', pr_number: 9, workflow_step: 'sync_pr_description' });
  });

  it('takes the first pull request when the step is not about one repository', () => {
    expect(stationTraceContext({ ...base, station: 'ci_evaluator', pull_requests: ['acme/api#4'] })).toMatchObject({ pr_number: 4 });
    expect(stationTraceContext({ ...base, station: 'ci_evaluator', pull_requests: ['acme/api#4'] })).not.toHaveProperty('repo');
  });

  it('names the delivery that moved the ticket, its retries and the last CI verdict', () => {
    const input = {
      ...base, station: 'attempt_ci_fix', pull_requests: ['acme/api#4'], retry_count: 2,
      trigger: { source_system: 'scmhost', event: 'check_run' },
      outputs: { ci_evaluator: { failing: [{ pull_request: 'acme/api#4', checks: ['lint'] }], passed: ['test'], notes: [] } },
    };
    expect(stationTraceContext(input)).toMatchObject({ ci_status: 'failed', event_source: 'scmhost', event_type: 'check_run', retry_count: 2 });
  });

  it('tells a CI wait from a pass, and leaves out what the ticket does not have yet', () => {
    expect(ciStatusOf({ ci_evaluator: { pending: ['build'], passed: [], failing: [] } })).toBe('pending');
    expect(ciStatusOf({ ci_evaluator: { passed: ['build'], notes: [], failing: [] } })).toBe('passed');
    expect(ciStatusOf({})).toBeUndefined();
    const context = stationTraceContext(base);
    for (const name of ['ci_status', 'event_source', 'event_type', 'retry_count']) expect(context).not.toHaveProperty(name);
  });
});

describe('the delivery a station names as its trigger', () => {
  const created = { observation_id: 'tracker:1', source_system: 'tracker', event: 'issue_created', observed_at: 't', received_at: 't', conflicting: false } as const;

  it('is the last command the ticket acted on', () => {
    expect(stationTrigger({ trigger: { source_system: 'gitlab', event: 'note' } }, created)).toEqual({ source_system: 'gitlab', event: 'note' });
  });

  it('is the last accepted delivery before any command, and none for a ticket started without one', () => {
    expect(stationTrigger({}, created)).toEqual({ source_system: 'tracker', event: 'issue_created' });
    expect(stationTrigger({}, null)).toBeUndefined();
  });
});
