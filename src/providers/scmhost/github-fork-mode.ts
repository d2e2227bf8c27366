import { NotFoundProviderError } from '../provider-errors';
import type { ScmhostClient } from './scmhost-client';

/**
 * Fork mode on GitHub. SPEC names `change_request_mode` only for the registry's GitLab projects; GitHub repositories
 * are named by the tracker's `service.repos` as plain `owner/name` strings, with no room for a mode. So, like
 * SCMHOST_DRAFT_REPOS, an operator lists the GitHub repositories whose changes go through the service account's fork
 * in SCMHOST_FORK_REPOS (`owner/name` entries, or `*` for all). Fork mode then pushes the ticket branch to the
 * account's fork (made on the first push) and opens the pull request from there; every other repository is `direct`.
 */

/** `fork` when the repository (any letter case) or `*` is listed. Pure. */
export function githubChangeRequestMode(repository: string, forkRepos: readonly string[]): 'direct' | 'fork' {
  return forkRepos.some((entry) => entry === '*' || entry.toLowerCase() === repository.toLowerCase()) ? 'fork' : 'direct';
}

export type ForkLookupClient = Pick<ScmhostClient, 'getAuthenticatedUser' | 'getRepository'>;

/**
 * For the container stations in fork mode on GitHub: the service account's fork of `owner/name`, so that a later
 * visit (CI or review fixes, rebase conflicts) continues the ticket branch there instead of starting over from the
 * upstream. A read, never a write: the account's repository of the same name, taken only when GitHub says it is a
 * fork of this repository. Undefined while there is none (the first push makes it). The account's login is asked
 * once (`botLogin`, SCMHOST_BOT_LOGIN, saves the call).
 */
export function githubForkOf(scmhost: () => Promise<ForkLookupClient>, botLogin?: string): (repository: string) => Promise<string | undefined> {
  let login: Promise<string> | undefined = botLogin ? Promise.resolve(botLogin) : undefined;
  return async (repository) => {
    const [owner, name] = repository.split('/');
    if (!owner || !name) return undefined;
    const client = await scmhost();
    login ??= client.getAuthenticatedUser().then((user) => user.login);
    const account = await login.catch((error: unknown) => { login = undefined; throw error; });
    if (account.toLowerCase() === owner.toLowerCase()) return undefined;
    try {
      const fork = await client.getRepository({ owner: account, repo: name });
      return fork.fork && fork.parentFullName?.toLowerCase() === repository.toLowerCase() ? fork.fullName : undefined;
    } catch (error) {
      if (error instanceof NotFoundProviderError || (error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  };
}
