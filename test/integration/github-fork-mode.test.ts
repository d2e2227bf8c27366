import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEffectActivities } from '../../activities/effect-activities';
import { loadServiceConfig } from '../../src/config/service-config';
import { createGitRemotes, runGit } from '../../src/containers/git-remote';
import { HOST_TREE_DIRNAME } from '../../src/containers/workspace-sync';
import { createLogger } from '../../src/logging/logger';
import { createScmhostClient } from '../../src/providers/scmhost/scmhost-client';
import { githubForkOf } from '../../src/providers/scmhost/github-fork-mode';
import { startScmhostSimulator, type ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { gitIn } from '../../src/sandbox/scmhost-simulator/git-smart-http';

/**
 * Fork mode on GitHub, as a deployment reaches it: SCMHOST_FORK_REPOS lists the repository, the worker's git remotes
 * then say `fork` for it (and `direct` for every other), the push of the ticket branch makes the service account's
 * fork and lands there (real git against the source-host simulator), the pull request is opened from the fork, and
 * a later visit finds the fork to continue the branch on.
 */

const TOKEN = 'ghp_forkModeToken0123456789abcdefXYZ012';
const logger = createLogger({ level: 'error', write: () => undefined });

describe('GitHub fork mode from SCMHOST_FORK_REPOS', () => {
  let scm: ScmhostSimulator;
  let workDir: string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'github-fork-mode-'));
    scm = await startScmhostSimulator({ repositories: ['acme/app', 'acme/tools'], tokens: { [TOKEN]: 'service-bot' } });
  });

  afterAll(async () => {
    await scm?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('reads the setting, refusing an entry that is not owner/name', () => {
    const base = { TRACKER_WEBHOOK_SECRET: 't', SCMHOST_WEBHOOK_SECRET: 's' };
    expect(loadServiceConfig({ ...base, SCMHOST_FORK_REPOS: 'acme/app, acme/web' }).config?.scmhost.forkRepos).toEqual(['acme/app', 'acme/web']);
    expect(loadServiceConfig({ ...base, SCMHOST_FORK_REPOS: '*' }).config?.scmhost.forkRepos).toEqual(['*']);
    expect(loadServiceConfig(base).config?.scmhost.forkRepos).toEqual([]);
    const bad = loadServiceConfig({ ...base, SCMHOST_FORK_REPOS: 'acme/app,not-a-repo' });
    expect(JSON.stringify(bad)).toContain('SCMHOST_FORK_REPOS: expected owner/repo, got \\"not-a-repo\\"');
  });

  it('pushes the ticket branch of a listed repository to the service account\'s fork and opens the pull request from there', async () => {
    const config = loadServiceConfig({ TRACKER_WEBHOOK_SECRET: 't', SCMHOST_WEBHOOK_SECRET: 's', SCMHOST_FORK_REPOS: 'Acme/App' }).config!;
    const remotes = createGitRemotes({ scmhostApiUrl: scm.url, scmhostToken: TOKEN, githubForkRepos: config.scmhost.forkRepos });
    expect(remotes.remoteFor('acme/app').changeRequestMode).toBe('fork');
    expect(remotes.remoteFor('acme/tools').changeRequestMode).toBe('direct');
    const client = await createScmhostClient({ token: TOKEN, baseUrl: scm.url });
    const effects = createEffectActivities({ logger, scmhost: async () => client, git: { remotes, scmhost: async () => client } });
    const forkOf = githubForkOf(async () => client);
    expect(await forkOf('acme/app')).toBeUndefined();

    // The station's commit on the ticket branch, in a host tree made from the upstream.
    const host = join(workDir, 'acme-7', HOST_TREE_DIRNAME);
    mkdirSync(join(workDir, 'acme-7'));
    const auth = { username: 'x-access-token', token: TOKEN };
    await runGit(['clone', '--quiet', `${scm.url}/acme/app.git`, host], { auth });
    await runGit(['checkout', '--quiet', '-b', 'service/acme-7'], { cwd: host });
    writeFileSync(join(host, 'feature.txt'), 'from the fork\n');
    await runGit(['add', '.'], { cwd: host });
    await runGit(['-c', 'user.name=s', '-c', 'user.email=s@example.invalid', 'commit', '--quiet', '-m', '[ACME-7] feature'], { cwd: host });
    const commit = (await runGit(['rev-parse', 'HEAD'], { cwd: host })).trim();

    // The mode is the remote's, as the stations take it.
    const mode = remotes.remoteFor('acme/app').changeRequestMode;
    const push = { kind: 'git.push' as const, repository: 'acme/app', branch: 'service/acme-7', commit_sha: commit, base_sha: null, workspace: host, mode };
    expect(await effects.performEffect({ idempotency_key: 'ACME-7:push', attempt: 1, operation: push })).toMatchObject({ status: 'succeeded', evidence: { ids: { repository: 'service-bot/app' } } });
    expect((await gitIn(scm.git.repositoryPath('service-bot/app'), ['rev-parse', 'service/acme-7'])).trim()).toBe(commit);
    expect(await gitIn(scm.git.repositoryPath('acme/app'), ['branch', '--list', 'service/acme-7'])).toBe('');

    const open = { kind: 'scmhost.open_pr' as const, repository: 'acme/app', head: 'service/acme-7', base: null, title: '[ACME-7] A feature', body: 'Why.', mode };
    const opened = await effects.performEffect({ idempotency_key: 'ACME-7:open', attempt: 1, operation: open });
    expect(opened).toMatchObject({ status: 'succeeded' });
    const pull = await client.getPullRequest({ owner: 'acme', repo: 'app' }, Number(opened.evidence?.ids?.number));
    expect([pull.headRepoFullName, pull.headRef, pull.headSha]).toEqual(['service-bot/app', 'service/acme-7', commit]);

    // A later visit finds the fork (and only for the repository it was forked from).
    expect(await forkOf('acme/app')).toBe('service-bot/app');
    expect(await forkOf('acme/tools')).toBeUndefined();
  });
});
