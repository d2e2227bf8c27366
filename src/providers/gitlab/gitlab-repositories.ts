import { findRegistryRepository, type RegistryRepository, type RepositoryRegistry } from '../../config/repository-registry';
import type { LatencyHook } from '../http/json-http-client';
import { createGitLabClient, gitLabOptionsForRepository, type GitLabClient } from './gitlab-client';

export interface GitLabRepositoryClient {
  entry: RegistryRepository;
  client: GitLabClient;
}

/**
 * The GitLab entry of a repository (by its registry name or namespace) with the client of its connection, one
 * client per connection; undefined for a repository the registry does not list (it is a GitHub repository). Throws
 * naming the variable when the connection's credential is not set.
 */
export function createGitLabRepositories(registry: RepositoryRegistry | undefined, options: { env?: NodeJS.ProcessEnv; onLatency?: LatencyHook } = {}): (repository: string) => GitLabRepositoryClient | undefined {
  const clients = new Map<string, GitLabClient>();
  return (repository) => {
    const entry = findRegistryRepository(registry, repository);
    if (!entry) return undefined;
    let client = clients.get(entry.connection.name);
    if (!client) {
      client = createGitLabClient({ ...gitLabOptionsForRepository(entry, options.env), onLatency: options.onLatency });
      clients.set(entry.connection.name, client);
    }
    return { entry, client };
  };
}
