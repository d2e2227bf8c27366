import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runGit } from '../../src/containers/git-remote';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import { startModelSimulator, type ModelSimulator } from '../../src/sandbox/model-simulator/model-simulator';
import { isReadOnlyTask } from '../../src/sandbox/model-simulator/sandbox-agent';
import { startScmhostSimulator, type ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startGitLabSimulator, type GitLabSimulator, type SimMergeRequest } from '../../src/sandbox/gitlab-simulator/gitlab-simulator';
import type { SimPull } from '../../src/sandbox/scmhost-simulator/github-json';
import { startTrackerSimulator, type TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { ensureContainerImage } from './container-image';
import { deliveryResponder, type DeliveryModelPlan } from './delivery-model';
import { startServiceStack, type ServiceStack } from './service-stack';
import { eventually, getJson, WaitAborted } from './webhooks';

const SCM_TOKEN = 'ghp_featureDeliveryToken0123456789abcdef';
const TRACKER_SECRET = 'delivery-tracker-secret';
const SCM_SECRET = 'delivery-scmhost-secret';
const GITLAB_TOKEN = 'glpat-featureDeliveryToken0123';
const GITLAB_SECRET = 'delivery-gitlab-secret';
export const DELIVERY_OPERATOR_TOKEN = 'delivery-operator-token';
const BOT = 'service-bot';
type Json = Record<string, any>;

/**
 * The world of the delivery flow (its test and its benchmark): the tracker and GitHub simulators with real git
 * repositories behind smart HTTP, a model whose agents make real changes, rootless podman, and the real worker and
 * gateway against a Temporal server. The helpers read what a user would look at.
 */
export interface DeliveryWorld {
  tracker: TrackerSimulator;
  scm: ScmhostSimulator;
  /** GitLab, for the projects of `gitlabProjects` (listed in a repository registry file). */
  gitlab: GitLabSimulator;
  model: ModelSimulator;
  stack: ServiceStack;
  plan: DeliveryModelPlan;
  execution(key: string): Promise<Json>;
  /** Waits until the ticket rests at `node` (paused, blocked or completed) with every effect settled. */
  at(key: string, node: string, what?: string, extra?: (view: Json) => boolean, timeoutMs?: number): Promise<Json>;
  comments(key: string): string[];
  pullsOf(repository: string, key: string): SimPull[];
  /** The merge requests of the ticket branch in a GitLab project. */
  mergeRequestsOf(project: string, key: string): SimMergeRequest[];
  /** Subjects of the commits on the ticket branch that are not on main, oldest first. */
  branchLog(repository: string, key: string): Promise<string[]>;
  /** A file as it is on the ticket branch. */
  fileOnBranch(repository: string, key: string, path: string): Promise<string>;
  /** Someone else's commit on main (what makes a rebase necessary). */
  pushToMain(repository: string, path: string, content: string): Promise<void>;
  /** What people and CI do on the source host, each with its webhook. */
  person: {
    check(repository: string, key: string, name: string, conclusion: string, summary?: string): void;
    review(repository: string, key: string, state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED', body: string, comments?: Array<{ path: string; line: number; body: string }>): void;
    merge(repository: string, key: string): void;
    /** A comment on the ticket's pull request (e.g. `/service rebase`). */
    comment(repository: string, key: string, body: string): void;
    /** GitLab CI finishes a pipeline for the head of the ticket's merge request. */
    pipeline(project: string, key: string, status: 'success' | 'failed' | 'running'): void;
    /** A reviewer's note on the ticket's merge request in a GitLab project. */
    mergeRequestNote(project: string, key: string, body: string): void;
    /** A reviewer starts a thread on the ticket's merge request (on a line of the diff with `at`); its discussion id. */
    mergeRequestThread(project: string, key: string, body: string, at?: { path: string; line: number }): string;
    /** A reviewer's reply in a thread of the ticket's merge request. */
    mergeRequestReply(project: string, key: string, discussionId: string, body: string): void;
    /** Someone merges the ticket's merge request in a GitLab project. */
    mergeRequestMerge(project: string, key: string): void;
  };
  close(): Promise<void>;
}

export async function startDeliveryWorld(temporalAddress: string, options: { repositories: string[]; gitlabProjects?: string[]; projectKey?: string; taskQueue: string; env?: NodeJS.ProcessEnv }): Promise<DeliveryWorld> {
  ensureContainerImage();
  const workDir = mkdtempSync(join(tmpdir(), 'feature-delivery-'));
  chmodSync(workDir, 0o711);
  const gitlabProjects = options.gitlabProjects ?? [];
  const allRepositories = [...options.repositories, ...gitlabProjects];
  const plan: DeliveryModelPlan = {
    repositories: allRepositories,
    agentOutputs: {},
    codeChange: (task) => {
      const repo = allRepositories.find((r) => task.includes(r));
      if (!repo || isReadOnlyTask(task)) return undefined;
      return { path: 'src/feature.txt', content: `feature for ${repo}\n${task.split('\n')[0]}\n` };
    },
  };
  // Ticket keys name workflow ids on a shared Temporal server: each world gets its own project, or a ticket of one
  // test would meet the completed workflow of another's ticket with the same key.
  const projectKey = options.projectKey ?? 'FD';
  const tracker = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: [projectKey] });
  tracker.state.setProperty(tracker.state.project(projectKey).properties, 'service.repos', allRepositories);
  const scm = await startScmhostSimulator({ tokens: { [SCM_TOKEN]: BOT }, repositories: options.repositories });
  const gitlab = await startGitLabSimulator({ tokens: { [GITLAB_TOKEN]: BOT }, projects: gitlabProjects });
  const gitlabAuth = { username: 'oauth2', token: GITLAB_TOKEN };
  const registryFile = join(workDir, 'repositories.yaml');
  writeFileSync(registryFile, [
    'connections:',
    '  gitlab-sim:',
    '    provider: gitlab',
    `    base_url: ${gitlab.url}`,
    '    credential_env: DELIVERY_GITLAB_TOKEN',
    '    webhook_secret_env: DELIVERY_GITLAB_WEBHOOK_SECRET',
    'repositories:',
    ...(gitlabProjects.length ? gitlabProjects.flatMap((project) => [`  ${project}:`, '    provider: gitlab', '    connection: gitlab-sim', `    namespace: ${project}`]) : ['  {}']),
  ].join('\n').replace('repositories:\n  {}', 'repositories: {}'));
  const hostOf = (repository: string) => (gitlabProjects.includes(repository) ? { url: gitlab.url, auth: gitlabAuth } : { url: scm.url, auth: { username: 'x-access-token', token: SCM_TOKEN } });
  const model = await startModelSimulator({ respond: deliveryResponder(plan) });
  for (const repo of allRepositories) {
    const seed = join(workDir, 'seed', repo);
    const host = hostOf(repo);
    await runGit(['clone', '--quiet', `${host.url}/${repo}.git`, seed], { auth: host.auth });
    writeFileSync(join(seed, 'APP.md'), `# ${repo} application\n`);
    await runGit(['add', '.'], { cwd: seed });
    await runGit(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'seed'], { cwd: seed });
    await runGit(['push', '--quiet', `${host.url}/${repo}.git`, 'HEAD:main'], { cwd: seed, auth: host.auth });
  }
  const stack = await startServiceStack(temporalAddress, {
    SERVICE_TASK_QUEUE: options.taskQueue,
    SERVICE_OPERATOR_TOKEN: DELIVERY_OPERATOR_TOKEN,
    EFFECT_OPERATOR_TOKEN: DELIVERY_OPERATOR_TOKEN,
    TRACKER_WEBHOOK_SECRET: TRACKER_SECRET,
    TRACKER_BASE_URL: tracker.url,
    TRACKER_USER_EMAIL: 'service@example.com',
    TRACKER_API_TOKEN: 'tracker-api-token-delivery',
    SCMHOST_TOKEN: SCM_TOKEN,
    SCMHOST_API_URL: scm.url,
    SCMHOST_WEBHOOK_SECRET: SCM_SECRET,
    SCMHOST_KNOWN_REPOS: options.repositories.join(','),
    SCMHOST_BOT_LOGIN: BOT,
    SERVICE_REPOS_CONFIG_PATH: registryFile,
    DELIVERY_GITLAB_TOKEN: GITLAB_TOKEN,
    DELIVERY_GITLAB_WEBHOOK_SECRET: GITLAB_SECRET,
    SERVICE_EFFECT_TIMEOUT_SECONDS: '15',
    SERVICE_POLL_INTERVAL_SECONDS: '0',
    CONTAINER_WORK_DIR: join(workDir, 'work'),
    CONTAINER_TIMEOUT: '180',
    AUTO_REVIEW_MAX_RETRIES: '0',
    CI_MAX_FIX_ATTEMPTS: '3',
    MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: model.url, allowed_models: ['delivery'], capabilities: ['structured_output', 'tools'] } }),
    MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: 'delivery' }),
    ...options.env,
  });
  tracker.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/tracker`, secret: TRACKER_SECRET });
  scm.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/scmhost`, secret: SCM_SECRET });
  gitlab.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/gitlab`, secret: GITLAB_SECRET });
  const mergeRequestsOf = (project: string, key: string) => gitlab.state.project(project).mergeRequests.filter((mr) => mr.sourceBranch === `service/${key.toLowerCase()}`);
  const openMergeRequest = (project: string, key: string) => {
    const mr = mergeRequestsOf(project, key).find((m) => m.state === 'opened');
    if (!mr) throw new Error(`${key} has no open merge request in ${project}`);
    return mr;
  };

  const execution = async (key: string) => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, DELIVERY_OPERATOR_TOKEN)).body as Json;
  const settled = (v: Json) => v.effects?.every((e: Json) => ['succeeded', 'terminal_failure', 'precondition_failure'].includes(e.status));
  const repoOf = (repository: string) => {
    const [owner, name] = repository.split('/');
    return scm.state.repo(owner!, name!);
  };
  const pullsOf = (repository: string, key: string) => scm.state.pullsOf(repoOf(repository)).filter((p) => p.headRef === `service/${key.toLowerCase()}`);
  const openPull = (repository: string, key: string) => {
    const pull = pullsOf(repository, key).find((p) => p.state === 'open');
    if (!pull) throw new Error(`${key} has no open pull request in ${repository}`);
    return pull;
  };
  const reviewer = scm.state.user('octo-reviewer');
  return {
    tracker, scm, gitlab, model, stack, plan, execution, mergeRequestsOf,
    at: (key, node, what = node, extra = () => true, timeoutMs = 240_000) => {
      // A ticket blocked elsewhere will not get there by itself: fail naming the block instead of waiting minutes.
      // The same block must hold for a while, so a block the test is about to lift (service:retry) does not count.
      let block: { at: string; since: number } | undefined;
      return eventually(async () => {
        const v = await execution(key);
        if (v.current_position === node && (v.checkpoint?.is_paused || v.status === 'blocked' || v.status === 'completed') && settled(v) && extra(v)) return v;
        const here = v.status === 'blocked' ? `${v.current_position}:${v.blocking?.code ?? ''}` : undefined;
        if (!here || here !== block?.at) block = here ? { at: here, since: Date.now() } : undefined;
        else if (Date.now() - block.since > 20_000) throw new WaitAborted(`${key} is blocked at ${v.current_position}: ${JSON.stringify(v.blocking ?? null).slice(0, 1500)}`);
        return undefined;
      }, timeoutMs, `${key} at ${what}`).catch(async (error: Error) => {
        // What the worker said last tells why a ticket did not get there (a failing workflow task cannot be queried).
        throw new Error(`${error.message}; last view: ${JSON.stringify(await execution(key)).slice(0, 4000)}\nworker output (end):\n${stack.worker.output().slice(-6000)}`);
      });
    },
    comments: (key) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body)),
    pullsOf,
    person: {
      check: (repository, key, name, conclusion, summary) => {
        scm.state.reportCheckRun(repoOf(repository), { name, headSha: openPull(repository, key).headSha, conclusion, summary: summary ?? `${name}: ${conclusion}` });
      },
      review: (repository, key, state, body, comments) => {
        scm.state.submitReview(repoOf(repository), openPull(repository, key).number, { state, body, comments }, reviewer);
      },
      comment: (repository, key, body) => {
        scm.state.addIssueComment(repoOf(repository), openPull(repository, key).number, body, reviewer);
      },
      merge: (repository, key) => {
        scm.state.mergePull(repoOf(repository), openPull(repository, key).number, reviewer);
      },
      pipeline: (project, key, status) => {
        const sim = gitlab.state.project(project);
        const mr = openMergeRequest(project, key);
        gitlab.state.reportPipeline(sim, mr.sourceBranch, sim.branches.get(mr.sourceBranch)!, status);
      },
      mergeRequestNote: (project, key, body) => {
        gitlab.state.addNote(openMergeRequest(project, key), body, 'octo-reviewer', gitlab.state.project(project));
      },
      mergeRequestThread: (project, key, body, at) => {
        const sim = gitlab.state.project(project);
        return gitlab.state.startDiscussion(openMergeRequest(project, key), body, 'octo-reviewer', { project: sim, ...(at ? { position: at } : {}) }).discussionId;
      },
      mergeRequestReply: (project, key, discussionId, body) => {
        gitlab.state.replyInDiscussion(openMergeRequest(project, key), discussionId, body, 'octo-reviewer', gitlab.state.project(project));
      },
      mergeRequestMerge: (project, key) => {
        const sim = gitlab.state.project(project);
        gitlab.state.merge(sim, openMergeRequest(project, key));
      },
    },
    fileOnBranch: async (repository, key, path) => {
      const clone = join(workDir, 'check', `${repository}-${Date.now()}`);
      await runGit(['clone', '--quiet', '--branch', `service/${key.toLowerCase()}`, `${hostOf(repository).url}/${repository}.git`, clone], { auth: hostOf(repository).auth });
      return readFileSync(join(clone, path), 'utf8');
    },
    pushToMain: async (repository, path, content) => {
      const clone = join(workDir, 'main', `${repository}-${Date.now()}`);
      await runGit(['clone', '--quiet', '--branch', 'main', `${hostOf(repository).url}/${repository}.git`, clone], { auth: hostOf(repository).auth });
      mkdirSync(dirname(join(clone, path)), { recursive: true });
      writeFileSync(join(clone, path), content);
      await runGit(['add', '-A'], { cwd: clone });
      await runGit(['-c', 'user.name=octo', '-c', 'user.email=octo@example.com', 'commit', '--quiet', '-m', `change ${path} on main`], { cwd: clone });
      await runGit(['push', '--quiet', 'origin', 'main'], { cwd: clone, auth: hostOf(repository).auth });
    },
    branchLog: async (repository, key) => {
      const clone = join(workDir, 'check', `${repository}-${Date.now()}`);
      await runGit(['clone', '--quiet', '--branch', `service/${key.toLowerCase()}`, `${hostOf(repository).url}/${repository}.git`, clone], { auth: hostOf(repository).auth });
      return (await runGit(['log', '--format=%s', 'origin/main..HEAD'], { cwd: clone })).trim().split('\n').reverse();
    },
    close: async () => {
      await stack.stop();
      await Promise.all([tracker.close(), scm.close(), gitlab.close(), model.close()]);
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
