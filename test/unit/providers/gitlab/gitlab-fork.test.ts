import { describe, expect, it } from 'vitest';
import { forkRemote, serviceForkOf, withGitLabForks, type ForkClient } from '../../../../src/providers/gitlab/gitlab-fork';
import { PreconditionProviderError } from '../../../../src/providers/provider-errors';
import type { GitLabProject } from '../../../../src/providers/gitlab/gitlab-client';

const FORK: GitLabProject = { id: 9, pathWithNamespace: 'service-bot/web', defaultBranch: 'main', webUrl: 'https://gl.example/service-bot/web', forkedFromId: 4 };

function client(forks: Array<GitLabProject | undefined>, create: () => Promise<GitLabProject>): ForkClient & { created: number } {
  const fake = {
    created: 0,
    findOwnFork: async () => forks.shift(),
    createFork: async () => { fake.created += 1; return create(); },
  };
  return fake;
}

describe('serviceForkOf', () => {
  it('uses the fork the service account has, and makes one only when it has none', async () => {
    const existing = client([FORK], async () => FORK);
    expect(await serviceForkOf(existing, 'group/web')).toBe(FORK);
    expect(existing.created).toBe(0);
    const none = client([undefined], async () => FORK);
    expect(await serviceForkOf(none, 'group/web')).toBe(FORK);
    expect(none.created).toBe(1);
  });

  it('takes the fork another attempt made when GitLab answers the fork with 409, and surfaces any other failure', async () => {
    const conflict = () => Promise.reject(new PreconditionProviderError('precondition failed', { provider: 'gitlab', operation: 'createFork', method: 'POST', path: '/projects/group%2Fweb/fork', status: 409 }));
    expect(await serviceForkOf(client([undefined, FORK], conflict), 'group/web')).toBe(FORK);
    await expect(serviceForkOf(client([undefined, undefined], conflict), 'group/web')).rejects.toBeInstanceOf(PreconditionProviderError);
    await expect(serviceForkOf(client([undefined], () => Promise.reject(new Error('403'))), 'group/web')).rejects.toThrow('403');
  });
});

describe('forkRemote', () => {
  it('is the upstream remote with the fork\'s path, the same token, pushed to directly', () => {
    const upstream = { url: 'https://gl.example/gitlab/group/web.git', auth: { username: 'oauth2', token: 't' }, changeRequestMode: 'fork' as const, defaultBranch: 'main' };
    expect(forkRemote(upstream, 'group/web', 'service-bot/web')).toEqual({ ...upstream, url: 'https://gl.example/gitlab/service-bot/web.git', changeRequestMode: 'direct' });
    expect(() => forkRemote(upstream, 'other/web', 'service-bot/web')).toThrow('does not end with /other/web.git');
  });
});

describe('withGitLabForks', () => {
  const upstream = { url: 'https://gl.example/group/web.git', auth: { username: 'oauth2', token: 't' }, changeRequestMode: 'fork' as const };
  const github = { url: 'https://github.com/acme/app.git', changeRequestMode: 'direct' as const };
  const remotes = { remoteFor: (repository: string) => (repository === 'web' ? upstream : github) };

  it('finds the service account\'s fork of a registry project with a read, and knows its git remote afterwards', async () => {
    let reads = 0;
    const forks = withGitLabForks(remotes, (repository) => (repository === 'web' ? { entry: { namespace: 'group/web' }, client: { findOwnFork: async () => { reads += 1; return FORK; } } } : undefined));
    expect(await forks.forkOf('web')).toBe('service-bot/web');
    expect(reads).toBe(1);
    expect(forks.remotes.remoteFor('service-bot/web')).toEqual({ ...upstream, url: 'https://gl.example/service-bot/web.git', changeRequestMode: 'direct' });
    expect(forks.remotes.remoteFor('web')).toBe(upstream);
  });

  it('has no fork for a GitHub repository or a project the service account never forked', async () => {
    const forks = withGitLabForks(remotes, (repository) => (repository === 'web' ? { entry: { namespace: 'group/web' }, client: { findOwnFork: async () => undefined } } : undefined));
    expect(await forks.forkOf('acme/app')).toBeUndefined();
    expect(await forks.forkOf('web')).toBeUndefined();
    expect(await withGitLabForks(remotes, undefined).forkOf('web')).toBeUndefined();
  });
});
