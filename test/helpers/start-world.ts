import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { adfToMarkdown } from '../../src/providers/tracker/adf/adf-to-markdown';
import { startGitLabSimulator, type GitLabSimulator, type SimMergeRequest } from '../../src/sandbox/gitlab-simulator/gitlab-simulator';
import { startModelSimulator, type ModelSimulator, type ModelSimulatorOptions } from '../../src/sandbox/model-simulator/model-simulator';
import type { SimPull } from '../../src/sandbox/scmhost-simulator/github-json';
import { startScmhostSimulator, type ScmhostSimulator } from '../../src/sandbox/scmhost-simulator/scmhost-simulator';
import { startTrackerSimulator, type TrackerSimulator } from '../../src/sandbox/tracker-simulator/tracker-simulator';
import { ensureContainerImage } from './container-image';
import { startServiceStack, type ServiceStack } from './service-stack';
import { eventually, getJson, WaitAborted } from './webhooks';
import { worldPerson, type WorldPerson } from './world-person';
import { gitlabRegistry, worldRepositories, type RepositoryHosts, type WorldRepositories } from './world-repositories';

type Json = Record<string, any>;

/** The login the service acts as on both source hosts. */
export const WORLD_BOT = 'service-bot';
export const WORLD_GITHUB_TOKEN = 'ghp_worldToken0123456789abcdefghijklmnopq';
export const WORLD_GITLAB_TOKEN = 'glpat-worldToken0123456789';

/** The worker the world runs: the real `service worker`, or a test worker built from the compiled service. */
const WORKER_SCRIPTS = {
  service: undefined,
  // Registers a test-only station (a container agent with a control directory) beside the real ones.
  'station-test': join(__dirname, 'station-test-worker.cjs'),
  // The real worker as a given build id of a worker deployment.
  'registry-test': join(__dirname, 'registry-test-worker.cjs'),
} as const;

export interface WorldOptions {
  /** Names the task queue (`it-<name>`), the temporary folder and the default secrets. */
  name: string;
  /** The tracker simulator with these projects; its webhooks go to the gateway unless `webhooks: false`. */
  tracker?: {
    projects: string[];
    /** Set as `service.repos` on every project. */
    repos?: string[];
    /** Further project properties set on every project before the service starts. */
    properties?: Record<string, unknown>;
    privateEmails?: boolean;
    webhooks?: boolean;
  };
  /** The source hosts: GitHub repositories (`owner/name`) and GitLab projects (listed in a repository registry file). */
  scm?: { github?: string[]; gitlab?: string[]; webhooks?: boolean };
  /** The model simulator; `name` is the model the service is configured with (its real worker only). */
  model?: true | (ModelSimulatorOptions & { name?: string });
  /** Files committed on `main` of every repository before the service starts (by repository, when a function). */
  seedRepo?: Record<string, string> | ((repository: string) => Record<string, string>);
  /** Rootless podman stations: the station image is built and the work folder is one the container account passes. */
  containers?: boolean;
  worker?: keyof typeof WORKER_SCRIPTS;
  /** The operator token of the gateway (`SERVICE_OPERATOR_TOKEN`). */
  operatorToken?: string;
  /** Settings of the service, over the world's (`TRACKER_WEBHOOK_SECRET` here is also what the tracker signs with). */
  env?: NodeJS.ProcessEnv;
  /** The Temporal server; the integration run's dev server by default. */
  temporalAddress?: string;
}

export interface World extends WorldRepositories {
  taskQueue: string;
  workDir: string;
  operatorToken: string;
  /** The secrets the simulators sign their webhooks with. */
  secrets: { tracker: string; scmhost: string; gitlab: string };
  tracker: TrackerSimulator;
  scm: ScmhostSimulator;
  gitlab: GitLabSimulator;
  model: ModelSimulator;
  /** The gateway and worker processes. */
  stack: ServiceStack;
  /** A Temporal client of the test's own, to look at the workflows behind the service's back. */
  client: Client;
  /** What people and CI do on the source hosts, each with its webhook. */
  person: WorldPerson;
  /** The ticket's execution view, read through the gateway with the operator token. */
  execution(key: string): Promise<Json>;
  /** Waits until the ticket rests at `node` (paused, blocked or completed) with every effect settled. */
  at(key: string, node: string, what?: string, extra?: (view: Json) => boolean, timeoutMs?: number): Promise<Json>;
  /** The ticket's comments as Markdown. */
  comments(key: string): string[];
  pullsOf(repository: string, key: string): SimPull[];
  /** The merge requests of the ticket branch in a GitLab project. */
  mergeRequestsOf(project: string, key: string): SimMergeRequest[];
  close(): Promise<void>;
}

/**
 * The Temporal server of the integration run (its global setup provides it). Imported when needed, by a name the
 * compiler does not follow: the delivery benchmark builds and runs this world outside vitest, with its own server.
 */
async function integrationRunTemporal(): Promise<string> {
  const vitest = 'vitest';
  const { inject } = await import(vitest) as { inject(key: 'temporalAddress'): string };
  return inject('temporalAddress');
}

/** A part of the world the options did not ask for: a test that reads it is missing an option. */
function absent<T>(what: string, option: string): T {
  return new Proxy({}, {
    get: (_, property) => {
      // Not a promise, and printable: only a real read of the missing part fails.
      if (property === 'then' || typeof property === 'symbol') return undefined;
      throw new Error(`this world has no ${what} (reading .${property}): give startWorld the ${option} option`);
    },
  }) as T;
}

/**
 * The one way an integration test starts the service: the simulators it asks for (tracker, GitHub and GitLab with
 * real git repositories behind smart HTTP, a model), a seeded `main`, the real gateway and worker processes against
 * the Temporal server with everything wired both ways, and a Temporal client. Everything started is stopped by
 * `close()`, also when starting fails half-way.
 */
export async function startWorld(options: WorldOptions): Promise<World> {
  const closers: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    return await buildWorld(options, closers, close);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

async function buildWorld(options: WorldOptions, closers: Array<() => Promise<unknown>>, close: () => Promise<void>): Promise<World> {
  const { name } = options;
  const env = options.env ?? {};
  const temporalAddress = options.temporalAddress ?? await integrationRunTemporal();
  const operatorToken = options.operatorToken ?? env.SERVICE_OPERATOR_TOKEN ?? `${name}-operator`;
  const secrets = {
    tracker: env.TRACKER_WEBHOOK_SECRET ?? `${name}-tracker-secret`,
    scmhost: env.SCMHOST_WEBHOOK_SECRET ?? `${name}-scmhost-secret`,
    gitlab: `${name}-gitlab-secret`,
  };
  if (options.containers) ensureContainerImage();
  const workDir = mkdtempSync(join(tmpdir(), `${name}-`));
  closers.push(async () => rmSync(workDir, { recursive: true, force: true }));
  // The container account runs the stations' containers on workspaces below it: it must pass through.
  chmodSync(workDir, 0o711);
  const worker = options.worker ?? 'service';
  const serviceEnv: NodeJS.ProcessEnv = { SERVICE_TASK_QUEUE: `it-${name}`, SERVICE_OPERATOR_TOKEN: operatorToken };

  let tracker = absent<TrackerSimulator>('tracker', 'tracker');
  if (options.tracker) {
    const wanted = options.tracker;
    const started = await startTrackerSimulator({ host: '127.0.0.1', port: 0, projects: wanted.projects, privateEmails: wanted.privateEmails });
    closers.push(() => started.close());
    const properties = { ...(wanted.repos ? { 'service.repos': wanted.repos } : {}), ...wanted.properties };
    for (const project of wanted.projects) {
      for (const [key, value] of Object.entries(properties)) started.state.setProperty(started.state.project(project).properties, key, value);
    }
    Object.assign(serviceEnv, {
      TRACKER_BASE_URL: started.url,
      TRACKER_USER_EMAIL: 'service@example.com',
      TRACKER_API_TOKEN: `tracker-api-token-${name}`,
      ...(wanted.webhooks === false ? {} : { TRACKER_WEBHOOK_SECRET: secrets.tracker }),
    });
    tracker = started;
  }

  let scm = absent<ScmhostSimulator>('GitHub simulator', 'scm.github');
  let gitlab = absent<GitLabSimulator>('GitLab simulator', 'scm.gitlab');
  const hosts: RepositoryHosts = { github: options.scm?.github ?? [], gitlab: options.scm?.gitlab ?? [] };
  const scmWebhooks = options.scm?.webhooks !== false;
  if (options.scm?.github) {
    const started = await startScmhostSimulator({ tokens: { [WORLD_GITHUB_TOKEN]: WORLD_BOT }, repositories: options.scm.github });
    closers.push(() => started.close());
    Object.assign(serviceEnv, { SCMHOST_TOKEN: WORLD_GITHUB_TOKEN, SCMHOST_API_URL: started.url, ...(scmWebhooks ? { SCMHOST_WEBHOOK_SECRET: secrets.scmhost } : {}) });
    hosts.scm = { url: started.url, auth: { username: 'x-access-token', token: WORLD_GITHUB_TOKEN } };
    scm = started;
  }
  if (options.scm?.gitlab) {
    const started = await startGitLabSimulator({ tokens: { [WORLD_GITLAB_TOKEN]: WORLD_BOT }, projects: options.scm.gitlab });
    closers.push(() => started.close());
    const registryFile = join(workDir, 'repositories.yaml');
    writeFileSync(registryFile, gitlabRegistry(started.url, options.scm.gitlab));
    Object.assign(serviceEnv, {
      SERVICE_REPOS_CONFIG_PATH: registryFile,
      WORLD_GITLAB_TOKEN,
      WORLD_GITLAB_WEBHOOK_SECRET: secrets.gitlab,
    });
    hosts.gitlabHost = { url: started.url, auth: { username: 'oauth2', token: WORLD_GITLAB_TOKEN } };
    gitlab = started;
  }

  let model = absent<ModelSimulator>('model simulator', 'model');
  if (options.model) {
    const { name: modelName = 'planner', ...simulatorOptions } = options.model === true ? {} : options.model;
    const started = await startModelSimulator(simulatorOptions);
    closers.push(() => started.close());
    Object.assign(serviceEnv, worker === 'station-test' ? { MODEL_SIM_URL: started.url } : {
      MODEL_CONNECTIONS: JSON.stringify({ sim: { backend: 'openai-compatible', base_url: started.url, allowed_models: [modelName], capabilities: ['structured_output', 'tools'] } }),
      MODEL_DEFAULT: JSON.stringify({ connection: 'sim', model: modelName }),
    });
    model = started;
  }

  const repositories = worldRepositories(hosts, workDir);
  if (options.seedRepo) {
    const seed = options.seedRepo;
    for (const repository of [...hosts.github, ...hosts.gitlab]) await repositories.seed(repository, typeof seed === 'function' ? seed(repository) : seed);
  }

  // Workspaces below the world's folder, not in the checkout's .data/ (removed with the world).
  Object.assign(serviceEnv, worker === 'station-test' && options.containers
    ? { STATION_CONTROL_DIR: join(workDir, 'control'), CONTAINER_TEST_WORK_DIR: join(workDir, 'work') }
    : { CONTAINER_WORK_DIR: join(workDir, 'work') });

  const stack = await startServiceStack(temporalAddress, { ...serviceEnv, ...env }, { workerScript: WORKER_SCRIPTS[worker] });
  closers.push(() => stack.stop());
  if (options.tracker && options.tracker.webhooks !== false) tracker.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/tracker`, secret: secrets.tracker });
  if (options.scm?.github && scmWebhooks) scm.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/scmhost`, secret: secrets.scmhost });
  if (options.scm?.gitlab && scmWebhooks) gitlab.webhooks.setTarget({ url: `${stack.api}/api/v1/webhooks/gitlab`, secret: secrets.gitlab });

  const connection = await Connection.connect({ address: temporalAddress });
  closers.push(() => connection.close());
  const client = new Client({ connection });
  const keepHistories = process.env.SERVICE_TEST_KEEP_HISTORIES;
  if (keepHistories) closers.push(() => exportTicketHistories(client, String(env.SERVICE_TASK_QUEUE ?? serviceEnv.SERVICE_TASK_QUEUE), join(keepHistories, name)));

  const execution = async (key: string) => (await getJson(`${stack.api}/api/v1/workflows/${key}/execution`, operatorToken)).body as Json;
  return {
    taskQueue: String(env.SERVICE_TASK_QUEUE ?? serviceEnv.SERVICE_TASK_QUEUE), workDir, operatorToken, secrets,
    tracker, scm, gitlab, model, stack, client,
    ...repositories,
    person: worldPerson(scm, gitlab),
    execution,
    at: (key, node, what, extra, timeoutMs) => restingAt(execution, stack, key, node, what, extra, timeoutMs),
    comments: (key) => tracker.state.issue(key).comments.map((c) => adfToMarkdown(c.body)),
    pullsOf: (repository, key) => {
      const [owner, repo] = repository.split('/');
      return scm.state.pullsOf(scm.state.repo(owner!, repo!)).filter((p) => p.headRef === `service/${key.toLowerCase()}`);
    },
    mergeRequestsOf: (project, key) => gitlab.state.project(project).mergeRequests.filter((mr) => mr.sourceBranch === `service/${key.toLowerCase()}`),
    close,
  };
}

const settled = (v: Json) => v.effects?.every((e: Json) => ['succeeded', 'terminal_failure', 'precondition_failure'].includes(e.status));

function restingAt(
  execution: (key: string) => Promise<Json>, stack: ServiceStack, key: string, node: string, what = node, extra: (view: Json) => boolean = () => true, timeoutMs = 240_000,
): Promise<Json> {
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
}

/**
 * With SERVICE_TEST_KEEP_HISTORIES=<folder>, a world writes the history of each ticket workflow it ran to
 * <folder>/<world>/<workflow id>-<run id>.json when it closes, in the JSON of `temporal workflow show -o json`: how
 * histories of features only an integration test drives (a migration, the kill switch, trusted actors) are recorded
 * for test/fixtures/histories.
 */
async function exportTicketHistories(client: Client, taskQueue: string, folder: string): Promise<void> {
  const { historyToJSON } = await import('@temporalio/common/lib/proto-utils.js');
  mkdirSync(folder, { recursive: true });
  for await (const run of client.workflow.list({ query: `TaskQueue = "${taskQueue}" AND WorkflowType = "ticketWorkflow"` })) {
    const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    writeFileSync(join(folder, `${run.workflowId}-${run.runId.slice(0, 8)}.json`), historyToJSON(history));
  }
}
