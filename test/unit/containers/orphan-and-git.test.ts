import { describe, expect, it } from 'vitest';
import { finishedOwnNames, orphanNames } from '../../../src/containers/orphan-sweep';
import { createGitRemotes, gitAuthEnv, githubWebRoot } from '../../../src/containers/git-remote';
import { parseRepositoryRegistry } from '../../../src/config/repository-registry';

describe('orphanNames', () => {
  it('picks containers of dead workers of this host, never a live, foreign or unlabelled one', () => {
    const containers = [
      { Names: ['dead'], Labels: { 'service.worker': 'h1:100' } },
      { Names: ['alive'], Labels: { 'service.worker': 'h1:200' } },
      { Names: ['other-host'], Labels: { 'service.worker': 'h2:100' } },
      { Names: ['unowned'], Labels: {} as Record<string, string> },
    ];
    expect(orphanNames(containers, 'h1', (pid) => pid === 200)).toEqual(['dead']);
  });
});

describe('finishedOwnNames', () => {
  it('picks this worker\'s containers that no longer run; never a running one, another worker\'s or an unlabelled one', () => {
    const containers = [
      { Names: ['exited'], State: 'exited', Labels: { 'service.worker': 'h1:100' } },
      { Names: ['created'], State: 'created', Labels: { 'service.worker': 'h1:100' } },
      { Names: ['running'], State: 'running', Labels: { 'service.worker': 'h1:100' } },
      { Names: ['other'], State: 'exited', Labels: { 'service.worker': 'h1:200' } },
      { Names: ['person'], State: 'exited', Labels: null },
    ];
    expect(finishedOwnNames(containers, 'h1:100')).toEqual(['exited', 'created']);
  });
});

describe('git remotes', () => {
  it('passes the token as an extra header in the environment only', () => {
    const env = gitAuthEnv({ username: 'x-access-token', token: 'ghp_secret' });
    expect(env.GIT_CONFIG_KEY_0).toBe('http.extraHeader');
    expect(env.GIT_CONFIG_VALUE_0).toBe(`Authorization: Basic ${Buffer.from('x-access-token:ghp_secret').toString('base64')}`);
    expect(gitAuthEnv(undefined).GIT_CONFIG_COUNT).toBeUndefined();
  });

  it('maps GitHub API roots to their web roots', () => {
    expect(githubWebRoot('https://api.github.com')).toBe('https://github.com');
    expect(githubWebRoot('https://ghe.example.com/api/v3/')).toBe('https://ghe.example.com');
    expect(githubWebRoot('http://127.0.0.1:4567')).toBe('http://127.0.0.1:4567');
  });

  it('finds GitLab repositories in the registry with their connection credential and change request mode', () => {
    const registry = parseRepositoryRegistry(JSON.stringify({
      connections: { gl: { provider: 'gitlab', base_url: 'https://gitlab.example.com/api/v4', credential_env: 'GL_TOKEN' } },
      repositories: { web: { provider: 'gitlab', connection: 'gl', namespace: 'group/web', default_branch: 'develop', change_request_mode: 'fork' } },
    }));
    const remotes = createGitRemotes({ scmhostApiUrl: 'https://api.github.com', scmhostToken: 'ghp_x', registry, env: { GL_TOKEN: 'glpat-y' } });
    expect(remotes.remoteFor('web')).toEqual({ url: 'https://gitlab.example.com/group/web.git', auth: { username: 'oauth2', token: 'glpat-y' }, changeRequestMode: 'fork', defaultBranch: 'develop' });
    expect(remotes.remoteFor('acme/app')).toEqual({ url: 'https://github.com/acme/app.git', auth: { username: 'x-access-token', token: 'ghp_x' }, changeRequestMode: 'direct' });
  });
});
