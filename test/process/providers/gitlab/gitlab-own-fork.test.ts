/**
 * Which fork is the service account's own (fork mode on GitLab). GitLab's `owned=true` lists every fork the account
 * owns, also those in a group it owns, where other people may push. The ticket branch must go to the fork in the
 * account's own user namespace only: a group fork is never pushed to or opened from, and a fork that must be made is
 * made in the account's namespace.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitLabClient, inUserNamespace, type GitLabClient } from '../../../../src/providers/gitlab/gitlab-client';
import { serviceForkOf, withGitLabForks } from '../../../../src/providers/gitlab/gitlab-fork';
import { GitLabSimulator, startGitLabSimulator } from '../../../../src/sandbox/gitlab-simulator/gitlab-simulator';

const NS = 'group/web';
const TOKEN = 'glpat-own-fork-token-123456';

describe('the service account\'s own fork on GitLab', () => {
  let sim: GitLabSimulator;
  let client: GitLabClient;

  beforeEach(async () => {
    sim = await startGitLabSimulator({ projects: [NS], tokens: { [TOKEN]: 'service-bot', 'glpat-other-token-1234567': 'mallory' } });
    client = createGitLabClient({ apiBaseUrl: sim.apiUrl, token: TOKEN, retry: { initialDelayMs: 10 } });
    // A group the service account owns, where someone else may push: GitLab lists its projects as the account's own.
    sim.state.createGroup('shared-bots', ['service-bot', 'mallory']);
  });
  afterEach(async () => { await sim.close(); });

  it('GitLab\'s owned list holds a fork in a group the account owns (the simulator answers as GitLab does)', async () => {
    sim.state.fork(sim.state.project(NS), 'shared-bots');
    const listed = await fetch(`${sim.apiUrl}/projects/${encodeURIComponent(NS)}/forks?owned=true`, { headers: { 'private-token': TOKEN } });
    expect(((await listed.json()) as Array<{ path_with_namespace: string; namespace: { kind: string; full_path: string } }>).map((p) => [p.path_with_namespace, p.namespace.kind, p.namespace.full_path]))
      .toEqual([['shared-bots/web', 'group', 'shared-bots']]);
  });

  it('is not a fork in a group the account owns: none is found, and the one made is in the account\'s own namespace', async () => {
    sim.state.fork(sim.state.project(NS), 'shared-bots');
    expect(await client.findOwnFork(NS)).toBeUndefined();
    const fork = await serviceForkOf(client, NS);
    expect(fork.pathWithNamespace).toBe('service-bot/web');
    expect(sim.state.project('service-bot/web').forkedFrom?.path).toBe(NS);
    // Found again afterwards, never the group's.
    expect((await client.findOwnFork(NS))?.pathWithNamespace).toBe('service-bot/web');
  });

  it('takes the fork in the account\'s namespace when a group fork was listed first', async () => {
    sim.state.fork(sim.state.project(NS), 'shared-bots');
    sim.state.fork(sim.state.project(NS), 'service-bot');
    expect((await client.findOwnFork(NS))?.pathWithNamespace).toBe('service-bot/web');
  });

  it('the container stations never learn a group fork as the ticket branch\'s remote', async () => {
    sim.state.fork(sim.state.project(NS), 'shared-bots');
    const upstream = { url: `${sim.url}/${NS}.git`, auth: { username: 'oauth2', token: TOKEN }, changeRequestMode: 'fork' as const };
    const forks = withGitLabForks({ remoteFor: () => upstream }, () => ({ entry: { namespace: NS }, client }));
    expect(await forks.forkOf('web')).toBeUndefined();
    expect(forks.remotes.remoteFor('shared-bots/web')).toBe(upstream);
  });

  it('a fork someone else made in their own namespace is never the account\'s', async () => {
    sim.state.fork(sim.state.project(NS), 'mallory');
    expect(await client.findOwnFork(NS)).toBeUndefined();
  });
});

describe('inUserNamespace', () => {
  it('is the account\'s own namespace by path, case-insensitively, and the namespace GitLab reports must agree', () => {
    expect(inUserNamespace({ path_with_namespace: 'Service-Bot/web', namespace: { kind: 'user', full_path: 'Service-Bot' } }, 'service-bot')).toBe(true);
    expect(inUserNamespace({ path_with_namespace: 'service-bot/web' }, 'service-bot')).toBe(true);
    expect(inUserNamespace({ path_with_namespace: 'shared-bots/web', namespace: { kind: 'group', full_path: 'shared-bots' } }, 'service-bot')).toBe(false);
    // A subgroup's path starts with a group's, never a user's; and a report that disagrees with the path is refused.
    expect(inUserNamespace({ path_with_namespace: 'service-bot/sub/web', namespace: { kind: 'group', full_path: 'service-bot/sub' } }, 'service-bot')).toBe(false);
    expect(inUserNamespace({ path_with_namespace: 'service-bot/web', namespace: { kind: 'group', full_path: 'service-bot' } }, 'service-bot')).toBe(false);
  });
});
