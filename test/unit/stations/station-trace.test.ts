import { describe, expect, it } from 'vitest';
import { stationTraceContext } from '../../../activities/stations/station-trace';

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
});
