import { describe, expect, it } from 'vitest';
import { mergeProgress, noteAcceptedPullRequest } from '../../../../workflows/runtime/merge-progress';
import type { Observation } from '../../../../workflows/ledger/observation';
import type { TicketState } from '../../../../workflows/runtime/ticket-state';

const merged = (repository: string, number: number, headRef = 'service/f-1', source = 'scmhost') =>
  ({ source_system: source, facts: { repository, pull_request: { number, merged: true, head_ref: headRef } } }) as unknown as Observation;
const reviewed = (repository: string, number: number, state: string) =>
  ({ source_system: 'scmhost', facts: { repository, pull_request: { number, head_ref: 'service/f-1' }, review: { id: '1', state, body: '' } } }) as unknown as Observation;

describe('merge progress', () => {
  it('moves on only when every pull request of the ticket is approved or merged', () => {
    expect(mergeProgress(['acme/api#1', 'acme/web#2'], ['acme/api#1'])).toEqual({ all: false, waiting: ['acme/web#2'] });
    expect(mergeProgress(['acme/api#1', 'acme/web#2'], ['acme/web#2'], ['acme/api#1'])).toEqual({ all: true, waiting: [] });
    expect(mergeProgress(['acme/api#1'], undefined, undefined)).toEqual({ all: false, waiting: ['acme/api#1'] });
    expect(mergeProgress([], [])).toEqual({ all: false, waiting: [] });
  });

  it('remembers each merge and approval once, and never a proposal, a changes request or an unmerged close', () => {
    const state = { pull_requests: ['acme/api#1'], runtime: {} } as unknown as Pick<TicketState, 'pull_requests' | 'runtime'>;
    expect(noteAcceptedPullRequest(state, merged('acme/api', 1))).toEqual({ ref: 'acme/api#1', how: 'merged' });
    expect(noteAcceptedPullRequest(state, merged('acme/api', 1))).toBeUndefined();
    expect(noteAcceptedPullRequest(state, merged('group/project', 4, 'service/f-1', 'gitlab'))).toEqual({ ref: 'group/project!4', how: 'merged' });
    expect(noteAcceptedPullRequest(state, merged('acme/docs', 9, 'service/prd/f-1'))).toBeUndefined();
    expect(noteAcceptedPullRequest(state, reviewed('acme/web', 2, 'approved'))).toEqual({ ref: 'acme/web#2', how: 'approved' });
    expect(noteAcceptedPullRequest(state, reviewed('acme/web', 3, 'changes_requested'))).toBeUndefined();
    const open = { source_system: 'scmhost', facts: { repository: 'acme/api', pull_request: { number: 5, merged: false } } } as unknown as Observation;
    expect(noteAcceptedPullRequest(state, open)).toBeUndefined();
    expect(state.runtime!.merged_pull_requests).toEqual(['acme/api#1', 'group/project!4']);
    expect(state.runtime!.approved_pull_requests).toEqual(['acme/web#2']);
  });
});
