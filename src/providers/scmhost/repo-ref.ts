import type { RepoRef } from './scmhost-types';

/**
 * `owner/repo`, as tickets, webhooks and the repository registry name a GitHub repository, split into the reference
 * the source-host client takes. The poller, the effects and the stations all need it, so it lives with the client.
 */
export function parseRepoRef(fullName: string): RepoRef {
  const [owner, repo] = fullName.split('/');
  if (!owner || !repo) throw new Error(`repository "${fullName}" is not owner/repo`);
  return { owner, repo };
}
