import { describe, expect, it } from 'vitest';
import { gitlabHookSchema } from '../../../../src/ingress/gitlab/gitlab-webhook-schema';
import { mergeRequestProject, normaliseGitLabEvent } from '../../../../src/ingress/gitlab/normalise-gitlab-event';
import { fixture } from '../../../helpers/fixtures';

/** A pipeline of a merge request from a fork, as GitLab sends it from the fork (project 42 forked from project 1). */
function forkPipeline(root: string, mutate: (payload: any) => void = () => undefined) {
  const payload = fixture<any>('gitlab/pipeline-failed.json');
  payload.project = { ...payload.project, id: 42, path_with_namespace: 'service-bot/api', web_url: `${root}/service-bot/api` };
  payload.merge_request = { ...payload.merge_request, source_project_id: 42, target_project_id: 1, url: `${root}/acme/platform/api/-/merge_requests/7` };
  mutate(payload);
  return gitlabHookSchema.parse(payload);
}

describe('mergeRequestProject', () => {
  it('is the hook\'s own project for its own merge requests and for every other kind of hook', () => {
    expect(mergeRequestProject(gitlabHookSchema.parse(fixture<any>('gitlab/pipeline-failed.json')))).toBe('acme/platform/api');
    expect(mergeRequestProject(gitlabHookSchema.parse(fixture<any>('gitlab/note-on-merge-request.json')))).toBe('acme/platform/api');
  });

  it('is the target project of a fork\'s merge request pipeline, also under a self-managed path prefix', () => {
    expect(mergeRequestProject(forkPipeline('https://gitlab.example.com'))).toBe('acme/platform/api');
    expect(mergeRequestProject(forkPipeline('https://example.com/gitlab'))).toBe('acme/platform/api');
    // Without the fork's web URL the prefix cannot be told from the path; only a plain instance root is read right.
    expect(mergeRequestProject(forkPipeline('https://gitlab.example.com', (p) => { delete p.project.web_url; }))).toBe('acme/platform/api');
  });

  it('keeps the hook\'s project when the merge request names no other one it can read', () => {
    expect(mergeRequestProject(forkPipeline('https://gitlab.example.com', (p) => { delete p.merge_request.target_project_id; }))).toBe('service-bot/api');
    expect(mergeRequestProject(forkPipeline('https://gitlab.example.com', (p) => { p.merge_request.url = 'not a url'; }))).toBe('service-bot/api');
    expect(mergeRequestProject(forkPipeline('https://gitlab.example.com', (p) => { p.merge_request = null; }))).toBe('service-bot/api');
  });

  it('routes a fork\'s pipeline to the merge request of the target project', () => {
    const result = normaliseGitLabEvent(forkPipeline('https://example.com/gitlab'));
    expect(result).toMatchObject({ kind: 'observation', routing: { pull_request_ref: 'acme/platform/api!7' }, observation: { facts: { repository: 'acme/platform/api' } } });
  });
});
