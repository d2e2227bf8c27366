import { describe, expect, it } from 'vitest';
import { normaliseScmhostEvent } from '../../../../src/ingress/scmhost/normalise-scmhost-event';
import { SCMHOST_EVENT_SCHEMAS, type ScmhostEventName } from '../../../../src/ingress/scmhost/scmhost-webhook-schema';
import { fixture } from '../../../helpers/fixtures';

const receivedAt = new Date('2026-11-23T08:00:00.000Z');

function normalise(event: ScmhostEventName, payload: unknown, source: 'webhook' | 'poller' = 'webhook') {
  const parsed = SCMHOST_EVENT_SCHEMAS[event].parse(payload);
  return normaliseScmhostEvent(event, parsed as never, { receivedAt, source });
}

function observed(event: ScmhostEventName, payload: unknown) {
  const result = normalise(event, payload);
  if (result.kind !== 'observation') throw new Error(JSON.stringify(result));
  return result;
}

// Real payloads published by GitHub (@octokit/webhooks-examples), stored under test/fixtures/scmhost.
describe('normaliseScmhostEvent on GitHub payloads', () => {
  it('identifies a pull request by its head SHA and routes by branch and index', () => {
    const { observation, routing } = observed('pull_request', fixture('scmhost/pull-request-opened.json'));
    expect(observation.delivery_identity).toBe('scmhost:pr:Codertocat/Hello-World#2:head:ec26c3e57ca3a959ca5aad62de7213c562f8c821');
    expect(observation.resource).toEqual({ kind: 'pull_request', id: 'Codertocat/Hello-World#2' });
    expect(routing).toEqual({ title: 'Update the README with new information.', branch: 'changes', pull_request_ref: 'Codertocat/Hello-World#2' });
    expect(observation.facts).toMatchObject({ action: 'opened', repository: 'Codertocat/Hello-World', pull_request: { number: 2, merged: false } });
  });

  it('gives opened and a later synchronize of the same head the same identity', () => {
    const opened = observed('pull_request', fixture('scmhost/pull-request-opened.json')).observation;
    const synced = observed('pull_request', fixture('scmhost/pull-request-synchronize.json')).observation;
    expect(synced.delivery_identity).toBe(opened.delivery_identity);
    expect(synced.fingerprint).toBe(opened.fingerprint);
  });

  it('identifies a merge by its merge commit', () => {
    const payload = fixture<any>('scmhost/pull-request-closed.json');
    payload.pull_request.merged = true;
    payload.pull_request.merge_commit_sha = 'abc123';
    const { observation } = observed('pull_request', payload);
    expect(observation.delivery_identity).toBe('scmhost:pr:Codertocat/Hello-World#2:merged:abc123');
    expect(observation.facts.pull_request?.merged).toBe(true);
  });

  it('keys a review by id and state', () => {
    const { observation } = observed('pull_request_review', fixture('scmhost/pull-request-review-submitted.json'));
    expect(observation.delivery_identity).toBe('scmhost:review:237895671:commented');
    expect(observation.facts.review).toMatchObject({ id: '237895671', state: 'commented' });
  });

  it('keys a completed check run by id, status and conclusion and routes by its pull request', () => {
    const { observation, routing } = observed('check_run', fixture('scmhost/check-run-completed.json'));
    expect(observation.delivery_identity).toBe('scmhost:check_run:128620228:completed:failure');
    expect(observation.revision).toBe('2019-05-15T15:21:12.000Z');
    expect(observation.facts.check_run).toMatchObject({ name: 'Octocoders-linter', conclusion: 'failure' });
    expect(routing).toMatchObject({ branch: 'changes', pull_request_ref: 'Codertocat/Hello-World#2' });
  });

  it('uses comments on pull requests only', () => {
    const payload = fixture<any>('scmhost/issue-comment-created.json');
    expect(normalise('issue_comment', payload)).toEqual({ kind: 'unsupported', reason: 'comment on an issue, not on a pull request' });
    payload.issue.pull_request = { url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1' };
    const { observation } = observed('issue_comment', payload);
    expect(observation.delivery_identity).toMatch(/^scmhost:comment:\d+@/);
    expect(observation.facts.comment?.body).toBe(payload.comment.body);
  });

  it('ignores actions the service does not use', () => {
    const payload = fixture<any>('scmhost/pull-request-opened.json');
    payload.action = 'labeled';
    expect(normalise('pull_request', payload)).toEqual({ kind: 'unsupported', reason: 'pull_request action "labeled" is not used' });
  });

  it('builds the same identity for a poller delivery', () => {
    const payload = fixture('scmhost/check-run-completed.json');
    const fromPoller = normalise('check_run', payload, 'poller');
    expect(fromPoller.kind === 'observation' && fromPoller.observation.delivery_identity).toBe('scmhost:check_run:128620228:completed:failure');
  });
});
