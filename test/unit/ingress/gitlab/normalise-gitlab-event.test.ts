import { describe, expect, it } from 'vitest';
import { gitlabHookSchema } from '../../../../src/ingress/gitlab/gitlab-webhook-schema';
import { gitlabTime, normaliseGitLabEvent } from '../../../../src/ingress/gitlab/normalise-gitlab-event';
import { fixture } from '../../../helpers/fixtures';
import { parseCommand } from '../../../../workflows/person-commands/command-parser';
import { BUILT_IN_DEFINITIONS } from '../../../../workflows/built-in-definitions';
import { acceptTable } from '../../../../workflows/built-in-definitions/definition-types';
import { gateTable } from '../../../../workflows/runtime/node-traits';
import type { Observation } from '../../../../workflows/ledger/observation';

function observed(name: string, mutate: (payload: any) => void = () => undefined) {
  const payload = fixture<any>(`gitlab/${name}`);
  mutate(payload);
  const result = normaliseGitLabEvent(gitlabHookSchema.parse(payload), { receivedAt: new Date('2026-11-23T09:00:00Z') });
  if (result.kind !== 'observation') throw new Error(JSON.stringify(result));
  return result;
}

describe('normaliseGitLabEvent', () => {
  it('reads GitLab time stamps in both of its formats', () => {
    expect(gitlabTime('2026-11-23 08:00:00 UTC')).toBe('2026-11-23T08:00:00.000Z');
    expect(gitlabTime('2026-11-23T08:00:00+01:00')).toBe('2026-11-23T07:00:00.000Z');
  });

  it('identifies a merged merge request by its merge commit and routes by title', () => {
    const { observation, routing } = observed('merge-request-merged.json');
    expect(observation.delivery_identity).toBe('gitlab:mr:acme/platform/api!7:merged:4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    expect(observation.facts.pull_request).toMatchObject({ number: 7, merged: true, head_ref: 'service/glb-1' });
    expect(routing).toEqual({ title: '[GLB-1] Add CSV export', branch: 'service/glb-1', pull_request_ref: 'acme/platform/api!7' });
  });

  it('reads an approval as GitLab\'s approving review: one fact per approver and head, which approves the change at the review gate', () => {
    const approve = (p: any) => { Object.assign(p.object_attributes, { state: 'opened', action: 'approved', merge_commit_sha: null }); p.user = { username: 'reviewer', id: 4242 }; };
    const { observation, routing } = observed('merge-request-merged.json', approve);
    const head = observation.facts.pull_request?.head_sha;
    expect(observation).toMatchObject({
      event: 'pull_request_review', delivery_identity: `gitlab:mr:acme/platform/api!7:approved:4242@${head}`, resource: { kind: 'review' },
      facts: { action: 'submitted', review: { state: 'approved', author: 'reviewer' }, actor_ids: ['gitlab-id:4242'] },
    });
    expect(routing.pull_request_ref).toBe('acme/platform/api!7');
    // A push moves the head: an approval of the new head is another fact; the same approval again is the same one.
    expect(observed('merge-request-merged.json', approve).observation.fingerprint).toBe(observation.fingerprint);
    expect(observed('merge-request-merged.json', (p) => { approve(p); p.object_attributes.last_commit.id = 'f'.repeat(40); }).observation.delivery_identity).not.toBe(observation.delivery_identity);

    const position = { workflow_kind: 'feature' as const, current_node: 'human_review_gate', accepts: acceptTable(BUILT_IN_DEFINITIONS.feature), gates: gateTable(BUILT_IN_DEFINITIONS.feature), is_blocked: false, is_paused: true, has_pull_request: true, draft_item_ids: [], rca_option_count: 0, proposal_review: true };
    expect(parseCommand({ ...observation, ticket_key: 'GLB-1' } as Observation, position)).toMatchObject({ kind: 'command', command: { type: 'review_approved', author: 'reviewer', pull_request: { repository: 'acme/platform/api', number: 7 } } });

    const withdrawn = normaliseGitLabEvent(gitlabHookSchema.parse({ ...fixture<any>('gitlab/merge-request-merged.json'), user: { username: 'reviewer', id: 4242 }, object_attributes: { ...fixture<any>('gitlab/merge-request-merged.json').object_attributes, action: 'unapproved' } }));
    expect(withdrawn.kind).toBe('unsupported');
  });

  it('reads a note on a merge request as a comment', () => {
    const { observation } = observed('note-on-merge-request.json');
    expect(observation.delivery_identity).toBe('gitlab:note:1244@2026-11-23T07:30:00.000Z');
    expect(observation.facts.comment).toMatchObject({ body: '/service skip-gate lint', author: 'reviewer' });
  });

  it('keeps the discussion of a note: a diff note is in a thread, with its place; a plain comment is not', () => {
    const { observation } = observed('diff-note-on-merge-request.json');
    expect(observation.delivery_identity).toBe('gitlab:note:1250@2026-11-23T07:40:00.000Z');
    expect(observation.facts.comment).toMatchObject({
      body: 'Say which invoices are exported.', author: 'reviewer',
      discussion: { id: '6a9c1750b37d513a43987b574953fceb50b03ce7', thread: true, path: 'src/export.ts', line: 12 },
    });
    const started = observed('diff-note-on-merge-request.json', (p) => { p.object_attributes.type = 'DiscussionNote'; p.object_attributes.position = null; });
    expect(started.observation.facts.comment!.discussion).toEqual({ id: '6a9c1750b37d513a43987b574953fceb50b03ce7', thread: true });
    const plain = observed('diff-note-on-merge-request.json', (p) => { p.object_attributes.type = null; p.object_attributes.position = null; });
    expect(plain.observation.facts.comment!.discussion).toEqual({ id: '6a9c1750b37d513a43987b574953fceb50b03ce7', thread: false });
    // A payload without a discussion (older GitLab, the recorded plain note) has none.
    expect(observed('note-on-merge-request.json').observation.facts.comment).not.toHaveProperty('discussion');
  });

  it('tells an edited note from its creation, by GitLab\'s action or by its update time', () => {
    expect(observed('note-on-merge-request.json').observation.facts.action).toBe('created');
    const later = observed('note-on-merge-request.json', (p) => { p.object_attributes.updated_at = '2026-11-23 07:35:00 UTC'; });
    expect(later.observation.facts).toMatchObject({ action: 'edited', comment: { created: '2026-11-23T07:30:00.000Z', updated: '2026-11-23T07:35:00.000Z' } });
    expect(observed('note-on-merge-request.json', (p) => { p.object_attributes.action = 'update'; }).observation.facts.action).toBe('edited');
  });

  it('takes final pipelines only, keyed by id and status', () => {
    expect(observed('pipeline-failed.json').observation.delivery_identity).toBe('gitlab:pipeline:31:failed');
    const running = normaliseGitLabEvent(gitlabHookSchema.parse({ ...fixture<any>('gitlab/pipeline-failed.json'), object_attributes: { ...fixture<any>('gitlab/pipeline-failed.json').object_attributes, status: 'running' } }));
    expect(running).toEqual({ kind: 'unsupported', reason: 'pipeline status "running" is not final' });
  });

  it('identifies a push by ref and the SHA it moved to', () => {
    const { observation, routing } = observed('push.json');
    expect(observation.delivery_identity).toBe('gitlab:push:acme/platform/api:refs/heads/service/glb-1:da1560886d4f094c3e6c9ef40349f7d38b5d27d7');
    expect(routing.branch).toBe('refs/heads/service/glb-1');
  });
});
