import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEffectActivities } from '../../activities/effect-activities';
import type { ContainerStationDeps } from '../../activities/stations/container-station';
import { createCiStations } from '../../activities/stations/code-change/ci-stations';
import { parseRepositoryRegistry } from '../../src/config/repository-registry';
import { loadServiceConfig } from '../../src/config/service-config';
import { createGitRemotes, runGit } from '../../src/containers/git-remote';
import { createGatewayApp } from '../../src/gateway/app';
import { listen, type ListeningServer } from '../../src/http/listen';
import { createLogger } from '../../src/logging/logger';
import { createServiceMetrics } from '../../src/metrics/service-metrics';
import { createGitLabRepositories } from '../../src/providers/gitlab/gitlab-repositories';
import { startGitLabSimulator, type GitLabSimulator } from '../../src/sandbox/gitlab-simulator/gitlab-simulator';
import type { TicketWorkflowsPort } from '../../src/temporal/ticket-workflows';
import type { Observation } from '../../workflows/ledger/observation';
import type { StationInput } from '../../workflows/runtime/station-types';

/**
 * Fork mode on GitLab and CI: the pipelines of a merge request from the service account's fork run in the fork, as
 * GitLab runs them by default. The simulator shows them where GitLab does (the merge request's head pipeline and
 * pipeline list, with the fork's project id) and sends their webhooks from the fork; the CI gate reads them from the
 * merge request, and the gateway routes the fork's pipeline hook to the ticket of the merge request it targets.
 */

const TOKEN = 'glpat-fork-pipelines-token-0123456';
const HOOK_SECRET = 'fork-pipelines-hook-secret';
const logger = createLogger({ level: 'error', write: () => undefined });

describe('pipelines of a GitLab merge request from the service account\'s fork', () => {
  let gitlab: GitLabSimulator;
  let gateway: ListeningServer;
  let workDir: string;
  const signalled: Observation[] = [];

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'gitlab-fork-pipelines-'));
    gitlab = await startGitLabSimulator({ tokens: { [TOKEN]: 'service-bot' }, projects: ['group/web'] });
    vi.stubEnv('GL_PIPE_HOOK', HOOK_SECRET);
    const registry = parseRepositoryRegistry(JSON.stringify({
      connections: { gl: { provider: 'gitlab', base_url: gitlab.url, credential_env: 'GL_PIPE_TOKEN', webhook_secret_env: 'GL_PIPE_HOOK' } },
      repositories: { web: { provider: 'gitlab', connection: 'gl', namespace: 'group/web', default_branch: 'main', change_request_mode: 'fork' } },
    }));
    const workflows = {
      startOrSignal: async (_input: unknown, observation: Observation) => { signalled.push(observation); return { workflowId: `ticket-${observation.ticket_key}` }; },
      signal: async (_key: string, observation: Observation) => { signalled.push(observation); return 'signalled' as const; },
      findTicketByPullRequest: async () => undefined,
    } as unknown as TicketWorkflowsPort;
    const config = loadServiceConfig({ TRACKER_WEBHOOK_SECRET: 'tracker-secret', SCMHOST_WEBHOOK_SECRET: 'scmhost-secret' }).config!;
    const app = createGatewayApp({ config, workflows, metrics: createServiceMetrics(), logger, registry });
    gateway = await listen(createServer(app), '127.0.0.1', 0, 'test gateway');
    gitlab.webhooks.setTarget({ url: `${gateway.url}/api/v1/webhooks/gitlab`, secret: HOOK_SECRET });
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await gitlab?.close();
    await gateway?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('shows the fork\'s pipeline on the merge request, fails the CI gate with it and routes its webhook to the ticket', async () => {
    const registry = parseRepositoryRegistry(JSON.stringify({
      connections: { gl: { provider: 'gitlab', base_url: gitlab.url, credential_env: 'GL_PIPE_TOKEN' } },
      repositories: { web: { provider: 'gitlab', connection: 'gl', namespace: 'group/web', default_branch: 'main', change_request_mode: 'fork' } },
    }));
    const env = { GL_PIPE_TOKEN: TOKEN };
    const repositories = createGitLabRepositories(registry, { env });
    const { client } = repositories('web')!;
    const effects = createEffectActivities({ logger, git: { remotes: createGitRemotes({ scmhostApiUrl: 'https://api.github.invalid', registry, env }) }, gitlab: repositories });

    // The ticket branch on the service account's fork, and its merge request into the project.
    const fork = await client.createFork('group/web');
    const clone = join(workDir, 'clone');
    const auth = { username: 'oauth2', token: TOKEN };
    await runGit(['clone', '--quiet', `${gitlab.url}/service-bot/web.git`, clone], { auth });
    await runGit(['checkout', '--quiet', '-b', 'service/web-9'], { cwd: clone });
    writeFileSync(join(clone, 'change.txt'), 'change\n');
    await runGit(['add', '.'], { cwd: clone });
    await runGit(['-c', 'user.name=s', '-c', 'user.email=s@example.invalid', 'commit', '--quiet', '-m', '[WEB-9] change'], { cwd: clone });
    await runGit(['push', '--quiet', `${gitlab.url}/service-bot/web.git`, 'HEAD:refs/heads/service/web-9'], { cwd: clone, auth });
    const head = (await runGit(['rev-parse', 'HEAD'], { cwd: clone })).trim();
    const open = { kind: 'scmhost.open_pr' as const, repository: 'web', head: 'service/web-9', base: null, title: '[WEB-9] A change', body: 'Why.', mode: 'fork' as const };
    expect(await effects.performEffect({ idempotency_key: 'WEB-9:open', attempt: 1, operation: open })).toMatchObject({ status: 'succeeded', evidence: { ids: { pull_request: 'group/web!1' } } });

    const ci = createCiStations({ gitlab: repositories, ignoredChecks: [], maxFixAttempts: 3, container: {} as ContainerStationDeps });
    const input: StationInput = {
      ticket_key: 'WEB-9', project_key: 'WEB', issue_type: 'Task', workflow_kind: 'task' as StationInput['workflow_kind'], run_id: 'run-web-9', node: 'ci_evaluator', station: 'ci_evaluator', visit: 1,
      params: {}, artifacts: {}, outputs: {}, token_budget: null, pull_requests: ['group/web!1'], ci: { skipped_checks: [], fix_attempts: 0 },
    } as StationInput;
    // No pipeline yet: the gate waits.
    expect((await ci.ci_evaluator!(input)).outcome).toBe('wait');

    // GitLab runs the merge request's pipeline in the fork, where the branch is.
    const sim = gitlab.state.project('group/web');
    const forkProject = gitlab.state.project('service-bot/web');
    const running = gitlab.state.reportPipeline(forkProject, 'service/web-9', head, 'running');
    expect(sim.pipelines).toEqual([]);
    const mr = (await (await fetch(`${gitlab.apiUrl}/projects/${encodeURIComponent('group/web')}/merge_requests/1`, { headers: { 'private-token': TOKEN } })).json()) as Record<string, any>;
    expect(mr.head_pipeline).toMatchObject({ id: running.id, project_id: fork.id, sha: head, status: 'running', web_url: `${gitlab.url}/service-bot/web/-/pipelines/${running.id}` });
    expect(mr.source_project_id).toBe(fork.id);
    expect(mr.target_project_id).toBe(sim.id);
    expect((await ci.ci_evaluator!(input)).outcome).toBe('wait');

    const failed = gitlab.state.reportPipeline(forkProject, 'service/web-9', head, 'failed');
    expect((await client.listMergeRequestPipelines('group/web', 1)).map((p) => [p.id, p.status])).toEqual([[failed.id, 'failed'], [running.id, 'running']]);
    const verdict = await ci.ci_evaluator!(input);
    expect(verdict.outcome).toBe('fail');
    expect((verdict.data as { failing: Array<{ pull_request: string; head_sha: string }> }).failing).toEqual([
      expect.objectContaining({ pull_request: 'group/web!1', head_sha: head }),
    ]);

    // The fork's pipeline hook (GitLab sends it from the fork) reaches the ticket of the merge request it targets.
    await gitlab.webhooks.flush();
    // The merge request's own hook comes from the project and names the fork's head as its last commit.
    const opened = gitlab.webhooks.deliveries.find((d) => d.event === 'merge_request')!.payload as { project: { path_with_namespace: string }; object_attributes: { last_commit: { id: string } } };
    expect([opened.project.path_with_namespace, opened.object_attributes.last_commit.id]).toEqual(['group/web', head]);
    const hooks = gitlab.webhooks.deliveries.filter((d) => d.event === 'pipeline');
    expect(hooks.map((d) => (d.payload as { project: { path_with_namespace: string } }).project.path_with_namespace)).toEqual(['service-bot/web', 'service-bot/web']);
    expect((hooks[1]!.payload as { merge_request: unknown }).merge_request).toMatchObject({ iid: 1, source_project_id: fork.id, target_project_id: sim.id, url: `${gitlab.url}/group/web/-/merge_requests/1` });
    expect(hooks.map((d) => d.status)).toEqual([202, 202]);
    const pipelineFacts = signalled.filter((o) => o.event === 'pipeline');
    expect(pipelineFacts).toHaveLength(1);
    expect(pipelineFacts[0]).toMatchObject({
      ticket_key: 'WEB-9', delivery_identity: `gitlab:pipeline:${failed.id}:failed`,
      facts: { repository: 'group/web', pull_request: { number: 1, head_sha: head }, pipeline: { id: String(failed.id), status: 'failed' } },
    });
  });
});
