import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEffectActivities } from '../../activities/effect-activities';
import type { ContainerStationDeps } from '../../activities/stations/container-station';
import { createRebaseStation } from '../../activities/stations/code-change/rebase-station';
import { stationFailureDetails } from '../../activities/stations/station-failure';
import { parseRepositoryRegistry } from '../../src/config/repository-registry';
import { createGitRemotes, runGit } from '../../src/containers/git-remote';
import { createLogger } from '../../src/logging/logger';
import { createGitLabRepositories } from '../../src/providers/gitlab/gitlab-repositories';
import { withGitLabForks } from '../../src/providers/gitlab/gitlab-fork';
import { startGitLabSimulator, type GitLabSimulator } from '../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { gitIn } from '../../src/sandbox/scmhost-simulator/git-smart-http';
import type { EffectOperation } from '../../workflows/effects/effect-types';
import type { StationInput } from '../../workflows/runtime/station-types';

/**
 * `/service rebase` of a GitLab merge request opened in fork mode: the project's main is merged into the ticket
 * branch on the service account's fork (real git against the GitLab simulator's repositories), the merge is pushed
 * to the fork and moves the merge request, never forced over a branch that moved, and a merge request from someone
 * else's fork is refused. Clean merges only: the conflict path runs the same container station as GitHub's
 * (container-station.test.ts), here reached through the station's own fork lookup.
 */

const TOKEN = 'glpat-rebase-fork-token-0123456789';
const OTHER_TOKEN = 'glpat-someone-else-token-987654321';
const logger = createLogger({ level: 'error' });
type Push = Extract<EffectOperation, { kind: 'git.push' }>;

function input(key: string, visit: number, pullRequest: string): StationInput {
  return {
    ticket_key: key, project_key: key.split('-')[0]!, issue_type: 'Task', workflow_kind: 'task' as StationInput['workflow_kind'],
    run_id: `run-${key.toLowerCase()}-0001`, node: 'rebase', station: 'rebase', visit,
    params: {}, artifacts: {}, outputs: {}, token_budget: 200_000, pull_requests: [pullRequest],
  };
}

describe('/service rebase of a GitLab merge request from the service account\'s fork', () => {
  let gitlab: GitLabSimulator;
  let workDir: string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'gitlab-fork-rebase-'));
    gitlab = await startGitLabSimulator({ tokens: { [TOKEN]: 'service-bot', [OTHER_TOKEN]: 'someone' }, projects: ['group/web'] });
  });

  afterAll(async () => {
    await gitlab?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** A person's commit of one file on a branch of a project, through git over HTTP. */
  async function commitFile(project: string, branch: string, file: string, content: string, token = TOKEN): Promise<string> {
    const auth = { username: 'oauth2', token };
    const clone = mkdtempSync(join(workDir, 'person-'));
    await runGit(['clone', '--quiet', `${gitlab.url}/${project}.git`, clone], { auth });
    const exists = await runGit(['ls-remote', '--heads', 'origin', branch], { cwd: clone, auth });
    if (exists.trim()) await runGit(['checkout', '--quiet', branch], { cwd: clone });
    else await runGit(['checkout', '--quiet', '-b', branch], { cwd: clone });
    writeFileSync(join(clone, file), content);
    await runGit(['add', '.'], { cwd: clone });
    await runGit(['-c', 'user.name=p', '-c', 'user.email=p@example.invalid', 'commit', '--quiet', '-m', `change ${file}`], { cwd: clone });
    await runGit(['push', '--quiet', `${gitlab.url}/${project}.git`, `HEAD:refs/heads/${branch}`], { cwd: clone, auth });
    return (await runGit(['rev-parse', 'HEAD'], { cwd: clone })).trim();
  }

  it('merges main into the fork\'s branch, pushes it to the fork (moving the merge request) and refuses to push over a branch that moved there', async () => {
    const registry = parseRepositoryRegistry(JSON.stringify({
      connections: { gl: { provider: 'gitlab', base_url: gitlab.url, credential_env: 'GL_REBASE_TOKEN' } },
      repositories: { web: { provider: 'gitlab', connection: 'gl', namespace: 'group/web', default_branch: 'main', change_request_mode: 'fork' } },
    }));
    const env = { GL_REBASE_TOKEN: TOKEN };
    const remotes = createGitRemotes({ scmhostApiUrl: 'https://api.github.invalid', registry, env });
    const repositories = createGitLabRepositories(registry, { env });
    const effects = createEffectActivities({ logger, git: { remotes }, gitlab: repositories });
    const { client } = repositories('web')!;

    // Fork mode as the ticket leaves it: the branch on the service account's fork and a merge request from there.
    const fork = await client.createFork('group/web');
    expect(fork.pathWithNamespace).toBe('service-bot/web');
    const forkGit = gitlab.git.repositoryPath('service-bot/web');
    await commitFile('service-bot/web', 'service/web-7', 'feature.txt', 'the ticket\'s change\n');
    const open = { kind: 'scmhost.open_pr' as const, repository: 'web', head: 'service/web-7', base: null, title: '[WEB-7] A change', body: 'Why.', mode: 'fork' as const };
    expect(await effects.performEffect({ idempotency_key: 'WEB-7:open', attempt: 1, operation: open })).toMatchObject({ status: 'succeeded', evidence: { ids: { pull_request: 'group/web!1' } } });

    // A clean merge starts no container: the container station's dependencies are only those it reads when built.
    const container = { config: { container: { workDir } }, logger, ...withGitLabForks(remotes, repositories) } as unknown as ContainerStationDeps;
    const rebase = createRebaseStation({ gitlab: repositories, remotes, workDir, container }).rebase!;

    // The project's main moved on: the merge is made on the host and pushed to the fork, not to the project.
    await commitFile('group/web', 'main', 'upstream.txt', 'main moved\n');
    const before = (await gitIn(forkGit, ['rev-parse', 'service/web-7'])).trim();
    const clean = await rebase(input('WEB-7', 1, 'group/web!1'));
    expect(clean.summary).toContain('merged main cleanly');
    const push = clean.effects![0]!.operation as Push;
    expect(push).toMatchObject({ kind: 'git.push', repository: 'group/web', mode: 'fork', branch: 'service/web-7', base_sha: before });
    expect(await effects.performEffect({ idempotency_key: 'WEB-7:rebase:1', attempt: 1, operation: push })).toMatchObject({ status: 'succeeded', evidence: { ids: { repository: 'service-bot/web' } } });
    expect(await gitIn(forkGit, ['show', 'service/web-7:upstream.txt'])).toBe('main moved\n');
    expect(await gitIn(forkGit, ['show', 'service/web-7:feature.txt'])).toBe('the ticket\'s change\n');
    expect((await gitIn(forkGit, ['log', '-1', '--format=%P', 'service/web-7'])).trim().split(' ')).toHaveLength(2);
    expect(gitlab.state.projects.get('group/web')!.branches.has('service/web-7')).toBe(false);
    // The merge request shows the merge as its head.
    expect((await client.getMergeRequest('group/web', 1)).sha).toBe(push.commit_sha);

    // Up to date now: nothing to push.
    expect((await rebase(input('WEB-7', 2, 'group/web!1'))).summary).toContain('already up to date with main');

    // Someone pushes to the fork's branch after the rebase fetched it: the merge is refused, never forced over it.
    await commitFile('group/web', 'main', 'later.txt', 'later\n');
    const late = await rebase(input('WEB-7', 3, 'group/web!1'));
    const latePush = late.effects![0]!.operation as Push;
    const theirs = await commitFile('service-bot/web', 'service/web-7', 'theirs.txt', 'theirs\n');
    const refused = await effects.performEffect({ idempotency_key: 'WEB-7:rebase:3', attempt: 1, operation: latePush });
    expect(refused).toMatchObject({ status: 'precondition_failure', error: expect.stringContaining('moved to') });
    expect((await gitIn(forkGit, ['rev-parse', 'service/web-7'])).trim()).toBe(theirs);
  });

  it('refuses a merge request from someone else\'s fork and one whose fork was deleted, saying what to do', async () => {
    const registry = parseRepositoryRegistry(JSON.stringify({
      connections: { gl: { provider: 'gitlab', base_url: gitlab.url, credential_env: 'GL_REBASE_TOKEN' } },
      repositories: { web: { provider: 'gitlab', connection: 'gl', namespace: 'group/web', default_branch: 'main', change_request_mode: 'fork' } },
    }));
    const env = { GL_REBASE_TOKEN: TOKEN };
    const remotes = createGitRemotes({ scmhostApiUrl: 'https://api.github.invalid', registry, env });
    const repositories = createGitLabRepositories(registry, { env });
    const container = { config: { container: { workDir } }, logger, remotes } as unknown as ContainerStationDeps;
    const rebase = createRebaseStation({ gitlab: repositories, remotes, workDir, container }).rebase!;

    // Someone forks the project and opens a merge request from a branch of the ticket's name.
    const theirs = createGitLabRepositories(registry, { env: { GL_REBASE_TOKEN: OTHER_TOKEN } })('web')!.client;
    await theirs.createFork('group/web');
    await commitFile('someone/web', 'service/web-8', 'x.txt', 'x\n', OTHER_TOKEN);
    const mr = await theirs.createMergeRequest('someone/web', { title: 'theirs', description: '', sourceBranch: 'service/web-8', targetBranch: 'main', targetProjectId: gitlab.state.project('group/web').id });
    const fromSomeone = stationFailureDetails(await rebase(input('WEB-8', 1, `group/web!${mr.iid}`)).catch((error: unknown) => error));
    expect(fromSomeone).toMatchObject({
      code: 'rebase_unsupported', message: expect.stringContaining('someone/web, which is not the service account\'s fork (service-bot/web)'),
      recovery: 'merge main into the branch by hand and push, then add service:retry',
    });
    expect(await gitIn(gitlab.git.repositoryPath('someone/web'), ['log', '-1', '--format=%s', 'service/web-8'])).toBe('change x.txt\n');

    // The fork is deleted: GitLab no longer knows the source project.
    gitlab.state.projects.delete('someone/web');
    const gone = stationFailureDetails(await rebase(input('WEB-8', 2, `group/web!${mr.iid}`)).catch((error: unknown) => error));
    expect(gone).toMatchObject({ code: 'rebase_fork_missing', recovery: expect.stringContaining('service:retry') });
  });
});
