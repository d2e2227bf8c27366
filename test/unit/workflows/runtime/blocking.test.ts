import { describe, expect, it } from 'vitest';
import {
  blockedComment, blockPersistsComment, blockReport, clearReviewResponseState, enterBlocked, leaveBlocked, nextBlockRecord, setupInstructionsComment,
} from '../../../../workflows/runtime/blocking';
import { initialTicketState } from '../../../../workflows/runtime/ticket-state';

const input = { ticket_key: 'PROJ-1', project_key: 'PROJ', issue_type: 'Feature', workflow_kind: 'feature' as const };

describe('blocking', () => {
  it('blocks once at the current node and leaves the block there on retry; the CI fix attempts are the position\'s (step resets them)', () => {
    const state = initialTicketState(input, 'run', 't0');
    state.checkpoint.current_node = 'ci_evaluator';
    state.checkpoint.ci_fix_attempts = 5;
    expect(enterBlocked(state, 'ci_fix_limit', 'CI fix attempt limit reached', 't1')).toBe(true);
    expect(enterBlocked(state, 'effect_unresolved', 'again', 't2')).toBe(false);
    expect(state).toMatchObject({ status: 'blocked', waiting: { code: 'ci_fix_limit', since: 't1' }, checkpoint: { is_blocked: true, last_error: 'CI fix attempt limit reached' } });
    expect(leaveBlocked(state, 't3')).toEqual({ resumedAt: 'ci_evaluator', code: 'ci_fix_limit' });
    expect(state.checkpoint).toMatchObject({ is_blocked: false, last_error: null, ci_fix_attempts: 5, current_node: 'ci_evaluator' });
    expect(state.retry_count).toBe(1);
  });

  it('clears the review state at review_response_gate and forces a fresh invocation', () => {
    const state = initialTicketState(input, 'run', 't0');
    Object.assign(state.checkpoint, { current_node: 'review_response_gate', is_paused: true, contested_comments: [1], feedback_comment: 'x', revision_requested: true });
    clearReviewResponseState(state);
    // Where the ticket goes, and that it no longer waits, is the gate's retry_to (step.ts reviewRetryPosition), not this function's to decide.
    expect(state.checkpoint).toMatchObject({ current_node: 'review_response_gate', is_paused: true, is_blocked: false, contested_comments: [], feedback_comment: null, revision_requested: null, force_fresh_invoke: true });
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

  describe('a retry that runs into the same block again', () => {
    const block = { node: 'generate_prd', visit: 1, code: 'station_not_available', message: 'the generate_prd station (generate_prd) is not available in this build of the service' };

    it('is a repeat at the same node, visit, code and message; counted in a row', () => {
      const first = nextBlockRecord(undefined, block);
      expect(first).toEqual({ ...block, repeats: 0 });
      const second = nextBlockRecord(first, block);
      expect(second.repeats).toBe(1);
      expect(nextBlockRecord(second, block).repeats).toBe(2);
    });

    it('is a new block when anything about it differs', () => {
      const first = nextBlockRecord(undefined, block);
      expect(nextBlockRecord(first, { ...block, message: 'the budget of 5 tokens would be exceeded' }).repeats).toBe(0);
      expect(nextBlockRecord(first, { ...block, code: 'budget_exhausted' }).repeats).toBe(0);
      expect(nextBlockRecord(first, { ...block, visit: 2 }).repeats).toBe(0);
      expect(nextBlockRecord(first, { ...block, node: 'generate_spec' }).repeats).toBe(0);
    });

    it('is never a repeat when a person or a delivery blocked the ticket again: each is a new act', () => {
      for (const code of ['stopped', 'unrecognized_command', 'conflicting_evidence']) {
        const first = nextBlockRecord(undefined, { ...block, code });
        expect(nextBlockRecord(first, { ...block, code }).repeats).toBe(0);
      }
    });

    it('is reported in full the first time, said to persist once, then only on the timeline', () => {
      expect([0, 1, 2, 5].map((repeats) => blockReport({ ...block, repeats }))).toEqual(['full', 'persists', 'silent', 'silent']);
      const text = blockPersistsComment(block);
      expect(text).toContain('**Still blocked** at `generate_prd`');
      expect(text).toContain('(`station_not_available`): the generate_prd station (generate_prd) is not available in this build of the service');
      expect(text).toContain('add `service:retry` again');
    });
  });
});
