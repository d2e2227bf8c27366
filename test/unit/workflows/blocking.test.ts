import { describe, expect, it } from 'vitest';
import { blockedComment, enterBlocked, leaveBlocked, leaveReviewResponseGate, setupInstructionsComment } from '../../../workflows/blocking';
import { initialTicketState } from '../../../workflows/ticket-state';

const input = { ticket_key: 'PROJ-1', project_key: 'PROJ', issue_type: 'Feature', workflow_kind: 'feature' as const };

describe('blocking', () => {
  it('blocks once at the current node and resumes there on retry, resetting what SPEC 3.2 says', () => {
    const state = initialTicketState(input, 'run', 't0');
    state.checkpoint.current_node = 'ci_evaluator';
    state.checkpoint.ci_fix_attempts = 5;
    expect(enterBlocked(state, 'ci_fix_limit', 'CI fix attempt limit reached', 't1')).toBe(true);
    expect(enterBlocked(state, 'effect_unresolved', 'again', 't2')).toBe(false);
    expect(state).toMatchObject({ status: 'blocked', waiting: { code: 'ci_fix_limit', since: 't1' }, checkpoint: { is_blocked: true, last_error: 'CI fix attempt limit reached' } });
    expect(leaveBlocked(state, 't3')).toEqual({ resumedAt: 'ci_evaluator', code: 'ci_fix_limit' });
    expect(state.checkpoint).toMatchObject({ is_blocked: false, last_error: null, ci_fix_attempts: 0, current_node: 'ci_evaluator' });
    expect(state.retry_count).toBe(1);
  });

  it('clears the review state at review_response_gate and forces a fresh invocation', () => {
    const state = initialTicketState(input, 'run', 't0');
    Object.assign(state.checkpoint, { current_node: 'review_response_gate', is_paused: true, contested_comments: [1], feedback_comment: 'x', revision_requested: true });
    leaveReviewResponseGate(state);
    expect(state.checkpoint).toMatchObject({ current_node: 'human_review_gate', is_paused: false, is_blocked: false, contested_comments: [], feedback_comment: null, revision_requested: null, force_fresh_invoke: true });
  });

  it('names the node, the code and the way out in the blocked comment', () => {
    const text = blockedComment({ node: 'intake', code: 'unrecognized_command', message: 'unknown command `/service frob`', ticketKey: 'PROJ-1' });
    expect(text).toContain('`intake`');
    expect(text).toContain('`unrecognized_command`');
    expect(text).toContain('`service:retry`');
  });

  it('says which property to set in the setup instructions', () => {
    const text = setupInstructionsComment({ projectKey: 'PROJ', missing: ['service.repos'], requireProjectConfig: true });
    expect(text).toMatch(/project `PROJ`/);
    expect(text).toContain('`service.repos`');
    expect(text).toContain('`service.default_repo`');
    expect(text).toContain('`service:retry`');
    expect(setupInstructionsComment({ projectKey: 'PROJ', missing: [], requireProjectConfig: false })).toContain('SCMHOST_KNOWN_REPOS');
  });
});
