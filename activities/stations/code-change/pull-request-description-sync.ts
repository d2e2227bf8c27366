import { z } from 'zod';
import type { PullRequest, RepoRef } from '../../../src/providers/scmhost/scmhost-types';
import type { EffectIntent, StationInput, StationResult } from '../../../workflows/runtime/station-types';
import { runModelStep, type ModelStepDeps } from '../planning/model-step';
import { issueEffectName } from './pull-request-stations';

/**
 * sync_pr_description (tool-free): after the service pushed a CI fix or review changes, the pull request's
 * description is rewritten to match, as an `scmhost.update_pr` effect (which adopts when nothing changed).
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

const schema = z.object({ description: z.string().min(1).describe('The whole updated pull request description in Markdown') });
const FOOTER = /\n*---\n_Opened by the service for [^_]+\._\s*$/;
const CHANGE_LIMIT = 6000;

export function createDescriptionSync(deps: DescriptionSyncDeps): SyncDescription {
  return async (input, pull, change) => {
    const current = await currentDescription(deps, pull);
    const footer = FOOTER.exec(current.body)?.[0] ?? `\n\n---\n_Opened by the service for ${input.ticket_key}._`;
    const step = await runModelStep({ ...deps }, { ...input, model_key: 'sync_pr_description' }, {
      key: 'sync_pr_description', skill: 'sync_pr_description', schema,
      prompt: [
        `Pull request ${pull.repository}#${pull.number} of ${input.ticket_key}: ${current.title}`,
        '', '## The current description', current.body.replace(FOOTER, '').trim() || '(empty)',
        '', '## What the new commit changed', change.slice(0, CHANGE_LIMIT),
      ].join('\n'),
    });
    return {
      effect: { name: issueEffectName('sync_pr', `${pull.repository}_${pull.number}`), operation: { kind: 'scmhost.update_pr', repository: pull.repository, number: pull.number, body: `${step.object.description.trim()}${footer}` } },
      usage: step.usage,
    };
  };
}
