import { describe, expect, it } from 'vitest';
import { requestReply, type RequestReplyInput } from '../../../../workflows/person-commands/status-reply';
import { initialCheckpoint } from '../../../../workflows/runtime/ticket-state';

const NOW = '2026-11-27T10:00:00.000Z';

function at(node: string, extra: Partial<RequestReplyInput['state']['checkpoint']> = {}, rest: Partial<Omit<RequestReplyInput['state'], 'checkpoint'>> = {}): RequestReplyInput['state'] {
  return { checkpoint: { ...initialCheckpoint(), current_node: node, ...extra }, status: 'running', waiting: null, ...rest };
}

describe('the one reply to an ignored request', () => {
  it('at a gate: what was asked, why it changed nothing, what the gate waits for and what is meaningful now', () => {
    const text = requestReply({
      ticketKey: 'SBX-1', asked: '/service approve', reason: '/service approve is not meaningful at prd_approval_gate (only at plan_approval_gate, task_approval_gate)',
      state: at('prd_approval_gate', { is_paused: true }, {
        status: 'waiting',
        waiting: { code: 'gate', message: 'approval of the PRD: add the label service:prd-approved (or comment `!` to revise, `?` to ask)', since: NOW, recovery: 'commands accepted here: ...' },
      }),
      permitted: ['service:prd-approved', 'a question (?)', 'feedback (!)'], removedLabels: [],
    });
    expect(text).toBe([
      'ℹ️ `/service approve` changed nothing: /service approve is not meaningful at prd_approval_gate (only at plan_approval_gate, task_approval_gate).',
      'SBX-1 waits at `prd_approval_gate`: approval of the PRD: add the label service:prd-approved (or comment `!` to revise, `?` to ask).',
      'Meaningful here now: service:prd-approved, a question (?), feedback (!).',
    ].join('\n\n'));
  });

  it('says which stray labels it took off', () => {
    const state = at('prd_approval_gate', { is_paused: true }, { status: 'waiting', waiting: { code: 'gate', message: 'approval of the PRD', since: NOW, recovery: null } });
    const one = requestReply({ ticketKey: 'SBX-1', asked: 'service:spec-approved', reason: 'r', state, permitted: [], removedLabels: ['service:spec-approved'] });
    expect(one.split('\n\n').at(-1)).toBe('The label `service:spec-approved` was taken off again.');
    const two = requestReply({ ticketKey: 'SBX-1', asked: 'x', reason: 'r', state, permitted: [], removedLabels: ['service:spec-approved', 'service:retry'] });
    expect(two.split('\n\n').at(-1)).toBe('The labels `service:spec-approved`, `service:retry` were taken off again.');
  });

  it('while blocked: the blocking code, the error and the way out', () => {
    const text = requestReply({
      ticketKey: 'SBX-2', asked: 'a question (?)', reason: 'a question (?) is not meaningful while the workflow is blocked at generate_prd; add service:retry to resume first',
      state: at('generate_prd', { is_blocked: true }, {
        status: 'blocked',
        waiting: { code: 'station_not_available', message: 'the generate_prd station is not available.', since: NOW, recovery: 'fix the cause, then add the label service:retry to resume at generate_prd' },
      }),
      permitted: ['service:retry', 'service:yolo'], removedLabels: [],
    });
    expect(text.split('\n\n').slice(1)).toEqual([
      'SBX-2 is blocked at `generate_prd` (`station_not_available`): the generate_prd station is not available.',
      'What moves it: fix the cause, then add the label service:retry to resume at generate_prd.',
    ]);
  });

  it('at a station: the service is at work and asks when it needs someone', () => {
    const text = requestReply({ ticketKey: 'SBX-3', asked: 'service:retry', reason: 'service:retry: nothing to retry at generate_spec', state: at('generate_spec'), permitted: ['service:yolo', 'service:stop'], removedLabels: ['service:retry'] });
    expect(text.split('\n\n').slice(1)).toEqual([
      'SBX-3 is at `generate_spec`, where the service is at work; it says on the ticket when it needs you.',
      'Meaningful here now: service:yolo, service:stop.',
      'The label `service:retry` was taken off again.',
    ]);
  });
});
