import { describe, expect, it } from 'vitest';
import { NotFoundProviderError } from '../../../../src/providers/provider-errors';
import { githubChangeRequestMode, githubForkOf, type ForkLookupClient } from '../../../../src/providers/scmhost/github-fork-mode';

describe('githubChangeRequestMode', () => {
  it('is fork for a listed repository (any letter case) or with *, and direct otherwise', () => {
    expect(githubChangeRequestMode('acme/app', ['Acme/App'])).toBe('fork');
    expect(githubChangeRequestMode('acme/app', ['*'])).toBe('fork');
    expect(githubChangeRequestMode('acme/app', ['acme/web'])).toBe('direct');
    expect(githubChangeRequestMode('acme/app', [])).toBe('direct');
  });
});

describe('githubForkOf', () => {
  const repos: Record<string, { fullName: string; fork: boolean; parentFullName?: string }> = {
    'service-bot/app': { fullName: 'service-bot/app', fork: true, parentFullName: 'acme/app' },
    'service-bot/own': { fullName: 'service-bot/own', fork: false },
  };
  let logins = 0;
  const client = {
    getAuthenticatedUser: async () => { logins += 1; return { login: 'service-bot', id: 1 }; },
    getRepository: async ({ owner, repo }: { owner: string; repo: string }) => {
      const found = repos[`${owner}/${repo}`];
      if (!found) throw new NotFoundProviderError('not found', { provider: 'scmhost', operation: 'getRepository', method: 'GET', path: `/repos/${owner}/${repo}`, status: 404 });
      return { ...found, defaultBranch: 'main', private: false, htmlUrl: '', cloneUrl: '' };
    },
  } as unknown as ForkLookupClient;

  it('finds the account\'s fork of the repository, asking the login once, and nothing that is not that fork', async () => {
    const forkOf = githubForkOf(async () => client);
    expect(await forkOf('acme/app')).toBe('service-bot/app');
    expect(await forkOf('other/app')).toBeUndefined();
    expect(await forkOf('acme/own')).toBeUndefined();
    expect(await forkOf('acme/none')).toBeUndefined();
    expect(await forkOf('service-bot/app')).toBeUndefined();
    expect(logins).toBe(1);
    expect(await githubForkOf(async () => client, 'service-bot')('acme/app')).toBe('service-bot/app');
    expect(logins).toBe(1);
  });
});
