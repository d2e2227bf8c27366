import { describe, expect, it } from 'vitest';
import { ticketCommentRequest } from '../../../../workflows/person-commands/command-comments';
import { serviceVerbOf } from '../../../../workflows/person-commands/command-service-verbs';
import { ignoredRequestOf, requestReplyName } from '../../../../workflows/person-commands/ignored-request';
import type { Observation, ObservationFacts, SourceSystem } from '../../../../workflows/ledger/observation';

function observation(event: Observation['event'], facts: ObservationFacts, source_system: SourceSystem = 'tracker'): Observation {
  return {
    delivery_identity: 'identity', source: 'webhook', source_system, event, resource: { kind: 'x', id: '1' }, revision: null,
    fingerprint: 'f', ticket_key: 'SBX-1', facts, observed_at: null, received_at: '2026-11-27T08:00:00.000Z',
  };
}

const AT = '2026-11-27T08:00:00.000Z';
const ticketComment = (body: string, updated = AT) => observation('issue_commented', { comment: { id: 'c1', body, created: AT, updated } });
const labels = (added: string[], removed: string[] = []) => observation('issue_updated', { label_change: { added, removed } });
const prComment = (body: string) => observation('issue_comment', { action: 'created', repository: 'acme/api', pull_request: { number: 7 }, comment: { id: 'p1', body } }, 'scmhost');
const gitlabNote = (body: string) => observation('note', { action: 'created', repository: 'acme/web', pull_request: { number: 3 }, comment: { id: 'n1', body } }, 'gitlab');
const ON = { kill_switch: true };

describe('the request behind an ignored observation', () => {
  it('is the approval label, service:retry or service:stop a person added, all of them taken off again', () => {
    expect(ignoredRequestOf(labels(['service:spec-approved']), ON)).toEqual({ asked: 'service:spec-approved', on: 'ticket', remove_labels: ['service:spec-approved'] });
    expect(ignoredRequestOf(labels(['service:retry']), ON)).toEqual({ asked: 'service:retry', on: 'ticket', remove_labels: ['service:retry'] });
    expect(ignoredRequestOf(labels(['frontend', 'service:plan-approved', 'service:retry']), ON)).toEqual({
      asked: 'service:plan-approved, service:retry', on: 'ticket', remove_labels: ['service:plan-approved', 'service:retry'],
    });
    expect(ignoredRequestOf(labels(['service:stop']), ON)).toMatchObject({ asked: 'service:stop', remove_labels: ['service:stop'] });
    // Before the kill switch, service:stop was a label like any other.
    expect(ignoredRequestOf(labels(['service:stop']), { kill_switch: false })).toBeUndefined();
  });

  it('is nothing for labels nobody asks the service with: switches already set, the service\'s own, removals', () => {
    expect(ignoredRequestOf(labels(['service:yolo']), ON)).toBeUndefined();
    expect(ignoredRequestOf(labels(['service:prd-pending'], ['service:blocked']), ON)).toBeUndefined();
    expect(ignoredRequestOf(labels([], ['service:prd-approved']), ON)).toBeUndefined();
    expect(ignoredRequestOf(labels(['frontend']), ON)).toBeUndefined();
    expect(ignoredRequestOf(observation('issue_updated', {}), ON)).toBeUndefined();
  });

  it('is the `/service` verb, question, feedback or option a ticket comment gives', () => {
    expect(ignoredRequestOf(ticketComment('/service approve'), ON)).toEqual({ asked: '/service approve', on: 'ticket', remove_labels: [] });
    expect(ignoredRequestOf(ticketComment('  /service REBASE\nplease'), ON)).toMatchObject({ asked: '/service rebase' });
    expect(ignoredRequestOf(ticketComment('? which format'), ON)).toMatchObject({ asked: 'a question (?)' });
    expect(ignoredRequestOf(ticketComment('@service ask why'), ON)).toMatchObject({ asked: 'a question (?)' });
    expect(ignoredRequestOf(ticketComment('! shorter please'), ON)).toMatchObject({ asked: 'feedback (!)' });
    expect(ignoredRequestOf(ticketComment('I would take >option 2'), ON)).toMatchObject({ asked: '>option' });
  });

  it('is nothing for conversation, an edited comment, or a comment without a body', () => {
    expect(ignoredRequestOf(ticketComment('Looks good, thanks!'), ON)).toBeUndefined();
    expect(ignoredRequestOf(ticketComment('![screenshot](https://x/y.png)'), ON)).toBeUndefined();
    expect(ignoredRequestOf(ticketComment('/service approve', '2026-11-27T09:00:00.000Z'), ON)).toBeUndefined();
    expect(ignoredRequestOf(observation('issue_commented', {}), ON)).toBeUndefined();
  });

  it('answers a pull-request command on that pull request, a GitLab note on the ticket', () => {
    expect(ignoredRequestOf(prComment('/service skip-gate lint'), ON)).toEqual({ asked: '/service skip-gate', on: 'pull_request', remove_labels: [] });
    expect(ignoredRequestOf(prComment('? why'), ON)).toBeUndefined();
    expect(ignoredRequestOf(gitlabNote('/service rebase'), ON)).toEqual({ asked: '/service rebase', on: 'ticket', remove_labels: [] });
  });

  it('is nothing for provider facts and the creation', () => {
    expect(ignoredRequestOf(observation('pull_request_review', { review: { id: 'r', state: 'approved', body: '/service approve' } }, 'scmhost'), ON)).toBeUndefined();
    expect(ignoredRequestOf(observation('issue_created', { labels: ['service:managed', 'service:prd-approved'] }), ON)).toBeUndefined();
  });
});

describe('the name of the one reply', () => {
  const request = { asked: '/service approve', on: 'ticket' as const, remove_labels: [] };

  it('is the same for the same request at the same position, so the journal posts it once', () => {
    expect(requestReplyName(request, { is_blocked: false, retry_count: 0 })).toBe('ignored_service_approve_open');
    expect(requestReplyName(request, { is_blocked: false, retry_count: 3 })).toBe('ignored_service_approve_open');
  });

  it('differs by request, by where it was written and by block episode', () => {
    expect(requestReplyName({ ...request, asked: 'service:spec-approved' }, { is_blocked: false, retry_count: 0 })).toBe('ignored_service_spec_approved_open');
    expect(requestReplyName({ ...request, asked: '/service skip-gate', on: 'pull_request' }, { is_blocked: false, retry_count: 0 })).toBe('ignored_service_skip_gate_on_pr_open');
    expect(requestReplyName(request, { is_blocked: true, retry_count: 0 })).toBe('ignored_service_approve_blocked_0');
    expect(requestReplyName(request, { is_blocked: true, retry_count: 1 })).toBe('ignored_service_approve_blocked_1');
    expect(requestReplyName({ ...request, asked: 'a question (?)' }, { is_blocked: false, retry_count: 0 })).toBe('ignored_a_question_open');
  });
});

describe('the grammar helpers the request is read with', () => {
  it('reads what a ticket comment asks for', () => {
    expect(['/service approve', '? x', '@Service ask x', '! x', 'pick >option 1', '&gt;option 2', 'hello', '![img](u)'].map(ticketCommentRequest))
      .toEqual(['service_command', 'question', 'question', 'feedback', 'option', 'option', undefined, undefined]);
  });

  it('names the verb of a /service comment', () => {
    expect(serviceVerbOf('/service Approve now')).toBe('/service approve');
    expect(serviceVerbOf('/service')).toBeUndefined();
    expect(serviceVerbOf('/services approve')).toBeUndefined();
    expect(serviceVerbOf('please /service approve')).toBeUndefined();
  });
});
