import type { PullRequest, RepoRef } from '../../../src/providers/scmhost/scmhost-types';
import type { EffectIntent, StationInput, StationResult } from '../../../workflows/runtime/station-types';
import { runModelStep, type ModelStepDeps } from '../planning/model-step';
import { issueEffectName } from './pull-request-stations';
import { formatPullRequestRef } from '../../../workflows/vocabulary/pull-request-ref';
import { describeParts, descriptionPartsOf, descriptionPartsSchema, pullRequestBody } from './pull-request-body';

/**
 * sync_pr_description (tool-free): after the service pushed a CI fix or review changes, the model brings its parts of
 * the description (summary, changes, how it was checked) up to date, and the service renders the whole body again
 * (pull-request-body.ts), so the tasks, a bug's root cause and release note and the footer stay. It is an
 * `scmhost.update_pr` effect, which adopts when nothing changed.
 */
export interface DescriptionSyncDeps extends ModelStepDeps {
  scmhost?: () => Promise<{ getPullRequest(ref: RepoRef, number: number): Promise<PullRequest> }>;
  /** Merge requests of the repository registry's GitLab projects. */
  gitlab?: (repository: string) => { entry: { namespace: string }; client: { getMergeRequest(namespace: string, iid: number): Promise<{ title: string; description: string }> } } | undefined;
}

/** The title and description as they are now, on GitHub or GitLab. */
async function currentDescription(deps: DescriptionSyncDeps, pull: { repository: string; number: number }): Promise<{ title: string; body: string }> {
  const gitlab = deps.gitlab?.(pull.repository);
  if (gitlab) {
    const mr = await gitlab.client.getMergeRequest(gitlab.entry.namespace, pull.number);
    return { title: mr.title, body: mr.description };
  }
  if (!deps.scmhost) throw new Error(`${pull.repository} is not a repository of a configured source host`);
  const [owner, repo] = pull.repository.split('/');
  return (await deps.scmhost()).getPullRequest({ owner: owner!, repo: repo! }, pull.number);
}

export type SyncDescription = (input: StationInput, pull: { repository: string; number: number }, change: string) => Promise<{ effect: EffectIntent; usage: NonNullable<StationResult['usage']> }>;

const CHANGE_LIMIT = 6000;

export function createDescriptionSync(deps: DescriptionSyncDeps): SyncDescription {
  return async (input, pull, change) => {
    const current = await currentDescription(deps, pull);
    const step = await runModelStep({ ...deps }, { ...input, model_key: 'sync_pr_description' }, {
      key: 'sync_pr_description', skill: 'sync_pr_description', schema: descriptionPartsSchema,
      prompt: [
        `Pull request ${formatPullRequestRef(pull.repository, pull.number, deps.gitlab?.(pull.repository) ? 'gitlab' : 'github')} of ${input.ticket_key}: ${current.title}`,
        '', '## Your parts of the current description', describeParts(descriptionPartsOf(current.body)),
        '', '## What the new commit changed', change.slice(0, CHANGE_LIMIT),
      ].join('\n'),
    });
    const body = pullRequestBody(input, pull.repository, step.object);
    return {
      effect: { name: issueEffectName('sync_pr', `${pull.repository}_${pull.number}`), operation: { kind: 'scmhost.update_pr', repository: pull.repository, number: pull.number, body } },
      usage: step.usage,
    };
  };
}
