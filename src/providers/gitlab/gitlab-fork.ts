import type { GitRemote, GitRemotes } from '../git-remote-types';
import { PreconditionProviderError } from '../provider-errors';
import type { GitLabClient, GitLabProject } from './gitlab-client';

/**
 * Fork mode on GitLab: the ticket branch lives on the service account's own fork of the registry's project, and the
 * merge request is opened from there into the project. The registry names only the upstream; the fork is found (or
 * made) through the API each time, so nothing about it has to be configured.
 */

export type ForkClient = Pick<GitLabClient, 'findOwnFork' | 'createFork'>;

/**
 * The service account's fork of `namespace`, made when it has none. Creating it twice is harmless: GitLab answers a
 * second fork into the same namespace with 409, and the fork another attempt made is then found.
 */
export async function serviceForkOf(client: ForkClient, namespace: string): Promise<GitLabProject> {
  const found = await client.findOwnFork(namespace);
  if (found) return found;
  try {
    return await client.createFork(namespace);
  } catch (error) {
    if (!(error instanceof PreconditionProviderError)) throw error;
    const made = await client.findOwnFork(namespace);
    if (made) return made;
    throw error;
  }
}

/**
 * The git remote of the fork: the upstream's, with the fork's path in place of the project's (same instance, same
 * token). Pure.
 */
export function forkRemote(upstream: GitRemote, namespace: string, forkPath: string): GitRemote {
  const suffix = `/${namespace}.git`;
  if (!upstream.url.endsWith(suffix)) throw new Error(`the git URL ${upstream.url} does not end with ${suffix}; cannot derive the URL of the fork ${forkPath}`);
  return { ...upstream, url: `${upstream.url.slice(0, -suffix.length)}/${forkPath}.git`, changeRequestMode: 'direct' };
}

/**
 * For the container stations in fork mode on GitLab: `forkOf` finds (a read, never a write) the service account's fork
 * of a registry project, so a later visit continues the ticket branch there instead of starting over; `remotes` then
 * knows that fork's git remote, which the registry, naming only the project, cannot give. Everything else is passed
 * through (GitHub repositories: no fork is looked up here).
 */
export function withGitLabForks(
  remotes: GitRemotes,
  gitlab: ((repository: string) => { entry: { namespace: string }; client: Pick<GitLabClient, 'findOwnFork'> } | undefined) | undefined,
): { remotes: GitRemotes; forkOf(repository: string): Promise<string | undefined> } {
  const forks = new Map<string, GitRemote>();
  return {
    remotes: { remoteFor: (repository) => forks.get(repository) ?? remotes.remoteFor(repository) },
    async forkOf(repository) {
      const project = gitlab?.(repository);
      if (!project) return undefined;
      const fork = await project.client.findOwnFork(project.entry.namespace);
      if (!fork) return undefined;
      forks.set(fork.pathWithNamespace, forkRemote(remotes.remoteFor(repository), project.entry.namespace, fork.pathWithNamespace));
      return fork.pathWithNamespace;
    },
  };
}
