import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PortInUseError } from '../http/listen';
import { startModelSimulator, type ModelSimulator } from './model-simulator/model-simulator';
import { sandboxResponder } from './model-simulator/sandbox-responder';
import {
  newSandboxSettings, readSandboxSettings, sandboxSettingsFile, SANDBOX_BOT_LOGIN, SANDBOX_PERSON_EMAIL, SANDBOX_MODEL, SANDBOX_PROJECT, SANDBOX_REPOSITORY,
  SANDBOX_REVIEWER_LOGIN, SANDBOX_SERVICE_EMAIL, SANDBOX_GITLAB_PROJECT, SANDBOX_GITLAB_TRACKER_PROJECT, SANDBOX_GITLAB_TOKEN_ENV, SANDBOX_GITLAB_WEBHOOK_SECRET_ENV,
} from './sandbox-settings';
import { startGitLabSimulator, type GitLabSimulator } from './gitlab-simulator/gitlab-simulator';
import { snapshotGitLab, type GitLabSnapshot } from './gitlab-simulator/gitlab-snapshot';
import { tokenLogin } from './scmhost-simulator/person-tokens';
import { persistState, readStateFile, writeStateFile, type StatePersistence } from './sandbox-state-file';
import { startScmhostSimulator, type ScmhostSimulator } from './scmhost-simulator/scmhost-simulator';
import type { ScmhostSnapshot } from './scmhost-simulator/scmhost-state';
import { startTrackerSimulator, type TrackerSimulator } from './tracker-simulator/tracker-simulator';
import type { TrackerSnapshot } from './tracker-simulator/tracker-state';

export interface Sandbox {
  tracker: TrackerSimulator;
  scmhost: ScmhostSimulator;
  /** The GitLab project of tracker project GLB's tickets. */
  gitlab: GitLabSimulator;
  /** Undefined when the user configured a model of their own. */
  model?: ModelSimulator;
  /** The variables that point the service at the simulators (merged over the caller's environment). */
  env: Record<string, string>;
  stateDir: string;
  /** Once the gateway listens: the simulators send their signed webhooks to it. */
  connect(gatewayUrl: string): void;
  describe(): string[];
  close(): Promise<void>;
}

export interface SandboxOptions {
  host?: string;
  /** Where the sandbox keeps its state: `<data dir>/sandbox`. */
  stateDir: string;
  /**
   * Whether the service's own state (the Temporal database) already exists. Simulator state without it belongs to
   * tickets no workflow remembers, so it is removed and the sandbox starts from nothing with the database.
   */
  serviceStateExists: boolean;
  /** The environment the service would otherwise run with: a model configured there is used instead of the simulator. */
  env: NodeJS.ProcessEnv;
  report?: (line: string) => void;
}

const STATE_FILES = ['tracker.json', 'scmhost.json', 'gitlab.json', 'model.json'];
/** The source host's bare repositories: `<state dir>/git/<owner>/<name>.git`. */
const GIT_FOLDER = 'git';
/** The GitLab simulator's bare repositories. */
const GITLAB_GIT_FOLDER = 'gitlab-git';
/** The repository registry (SERVICE_REPOS_CONFIG_PATH) that names the GitLab project and its connection. */
const REGISTRY_FILE = 'repositories.yaml';

/** The registry file: one GitLab connection to the simulator, its credentials in the variables the sandbox sets. */
export function sandboxRegistry(gitlabUrl: string): string {
  return [
    '# Written by `service dev --sandbox` at every start: the GitLab simulator and its project.',
    'connections:',
    '  sandbox-gitlab:',
    '    provider: gitlab',
    `    base_url: ${gitlabUrl}`,
    `    credential_env: ${SANDBOX_GITLAB_TOKEN_ENV}`,
    `    webhook_secret_env: ${SANDBOX_GITLAB_WEBHOOK_SECRET_ENV}`,
    'repositories:',
    `  ${SANDBOX_GITLAB_PROJECT}:`,
    '    provider: gitlab',
    '    connection: sandbox-gitlab',
    `    namespace: ${SANDBOX_GITLAB_PROJECT}`,
    '',
  ].join('\n');
}
const MODEL_VARIABLES = ['MODEL_CONNECTIONS', 'MODEL_DEFAULT', 'MODEL_POLICY', 'LLM_BACKEND', 'LLM_MODEL'];

/** The model variables the user set (non-empty); the sandbox's model stands in only when there are none. */
export function userModelVariables(env: NodeJS.ProcessEnv): string[] {
  return MODEL_VARIABLES.filter((name) => env[name]?.trim());
}




/** The port of the last run when it is free, so addresses a user copied keep working; any free port otherwise. */
async function onKeptPort<T>(port: number, start: (port: number) => Promise<T>): Promise<T> {
  if (port === 0) return start(0);
  try {
    return await start(port);
  } catch (error) {
    if (error instanceof PortInUseError) return start(0);
    throw error;
  }
}

/**
 * `service dev --sandbox`: the tracker, source-host and model simulators on loopback, a configured project and
 * repository, and webhook secrets made up once. Everything lives in `stateDir` next to the Temporal database, so a
 * restart continues where the last run stopped: the same tickets, and ids that keep counting.
 */
export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const report = options.report ?? (() => undefined);
  const { stateDir } = options;
  const file = (name: string) => join(stateDir, name);
  if (!options.serviceStateExists && [...STATE_FILES, GIT_FOLDER, GITLAB_GIT_FOLDER].some((name) => existsSync(file(name)))) {
    for (const name of STATE_FILES) rmSync(file(name), { force: true });
    for (const folder of [GIT_FOLDER, GITLAB_GIT_FOLDER]) rmSync(file(folder), { recursive: true, force: true });
    report(`sandbox: the Temporal database is new, so the simulators start from nothing too (old state in ${stateDir} removed)`);
  }
  const settings = readSandboxSettings(stateDir) ?? newSandboxSettings();
  const { secrets } = settings;
  // The read API (execution view, timeline) needs an operator token; the sandbox makes one up unless you set yours.
  secrets.SERVICE_OPERATOR_TOKEN ??= `sandbox-${randomBytes(16).toString('hex')}`;
  secrets.person_token_secret ??= randomBytes(16).toString('hex');
  secrets.gitlab_token ??= `sandbox-${randomBytes(16).toString('hex')}`;
  secrets.gitlab_webhook_secret ??= randomBytes(16).toString('hex');
  const gitlabToken = secrets.gitlab_token;
  const gitlabWebhookSecret = secrets.gitlab_webhook_secret;
  const operatorToken = options.env?.SERVICE_OPERATOR_TOKEN || secrets.SERVICE_OPERATOR_TOKEN;
  const trackerState = readStateFile<TrackerSnapshot>(file('tracker.json'));
  const scmhostState = readStateFile<ScmhostSnapshot>(file('scmhost.json'));
  const gitlabState = readStateFile<GitLabSnapshot>(file('gitlab.json'));
  const modelState = readStateFile<{ version: 1; responses: number }>(file('model.json'));
  const useModel = userModelVariables(options.env).length === 0;

  const persisted: StatePersistence[] = [];
  const started: Array<{ close(): Promise<void> }> = [];
  try {
    const tracker = await onKeptPort(settings.ports.tracker, (port) => startTrackerSimulator({ host, port, projects: [SANDBOX_PROJECT] }));
    started.push(tracker);
    if (trackerState) tracker.state.restore(trackerState);
    tracker.state.createProject(SANDBOX_PROJECT);
    const project = tracker.state.project(SANDBOX_PROJECT).properties;
    tracker.state.setProperty(project, 'service.repos', [SANDBOX_REPOSITORY]);
    tracker.state.setProperty(project, 'service.default_repo', SANDBOX_REPOSITORY);

    const scmhost = await onKeptPort(settings.ports.scmhost, (port) => startScmhostSimulator({
      host, port, repositories: [SANDBOX_REPOSITORY], gitRoot: file(GIT_FOLDER), restore: scmhostState,
      tokens: { [secrets.SCMHOST_TOKEN]: SANDBOX_BOT_LOGIN, [secrets.reviewer_token]: SANDBOX_REVIEWER_LOGIN },
      personTokenSecret: secrets.person_token_secret,
    }));
    started.push(scmhost);
    for (const line of scmhost.gitCheck.followed) report(`sandbox: the source host's state follows its git repository: ${line}`);
    const gitWarning = scmhost.gitCheck.problems.length > 0
      ? [
        `sandbox: WARNING: scmhost.json names commits the source host's git repositories (${file(GIT_FOLDER)}) do not have:`,
        ...scmhost.gitCheck.problems.map((problem) => `sandbox:   ${problem}`),
        `sandbox:   pull requests on these branches show no content and cannot be merged; stop and delete ${join(stateDir, '..')} to start from nothing`,
      ]
      : [];
    for (const line of gitWarning) report(line);

    // GitLab: tracker project GLB delivers to its project, with the same people (and person tokens) as on GitHub.
    const gitlab = await onKeptPort(settings.ports.gitlab ?? 0, (port) => startGitLabSimulator({
      host, port, projects: [SANDBOX_GITLAB_PROJECT], gitRoot: file(GITLAB_GIT_FOLDER), ...(gitlabState ? { restore: gitlabState } : {}),
      tokens: tokenLogin({ tokens: { [gitlabToken]: SANDBOX_BOT_LOGIN, [secrets.reviewer_token]: SANDBOX_REVIEWER_LOGIN }, personTokenSecret: secrets.person_token_secret }),
    }));
    started.push(gitlab);
    // The repository and its first commit exist before anyone clones it (the project's main is that commit).
    gitlab.git.repositoryPath(SANDBOX_GITLAB_PROJECT);
    tracker.state.createProject(SANDBOX_GITLAB_TRACKER_PROJECT);
    const gitlabProject = tracker.state.project(SANDBOX_GITLAB_TRACKER_PROJECT).properties;
    tracker.state.setProperty(gitlabProject, 'service.repos', [SANDBOX_GITLAB_PROJECT]);
    tracker.state.setProperty(gitlabProject, 'service.default_repo', SANDBOX_GITLAB_PROJECT);
    writeStateFile(file(REGISTRY_FILE), sandboxRegistry(gitlab.url));

    const model = useModel
      ? await onKeptPort(settings.ports.model, (port) => startModelSimulator({ host, port, respond: sandboxResponder, firstResponseNumber: modelState?.responses ?? 0 }))
      : undefined;
    if (model) started.push(model);

    persisted.push(persistState(file('tracker.json'), { snapshot: () => tracker.state.snapshot(), onEvent: (listener) => tracker.state.onEvent(listener) }));
    persisted.push(persistState(file('scmhost.json'), { snapshot: () => scmhost.state.snapshot(), onEvent: (listener) => scmhost.state.onEvent(listener) }));
    persisted.push(persistState(file('gitlab.json'), { snapshot: () => snapshotGitLab(gitlab.state), onEvent: (listener) => gitlab.state.onEvent(listener) }));
    if (model) persisted.push(persistState(file('model.json'), { snapshot: () => ({ version: 1, responses: model.responses() }), onEvent: () => undefined }));

    const portOf = (url: string) => Number(new URL(url).port);
    settings.ports = { tracker: portOf(tracker.url), scmhost: portOf(scmhost.url), model: model ? portOf(model.url) : settings.ports.model, gitlab: portOf(gitlab.url) };
    settings.urls = { tracker: tracker.url, scmhost: scmhost.url, gitlab: gitlab.url, ...(model ? { model: model.url } : {}) };
    const saveSettings = () => writeStateFile(sandboxSettingsFile(stateDir), `${JSON.stringify(settings, null, 2)}\n`);
    saveSettings();

    const env: Record<string, string> = {
      TRACKER_BASE_URL: tracker.url,
      TRACKER_USER_EMAIL: SANDBOX_SERVICE_EMAIL,
      TRACKER_API_TOKEN: secrets.TRACKER_API_TOKEN,
      TRACKER_WEBHOOK_SECRET: secrets.TRACKER_WEBHOOK_SECRET,
      SCMHOST_API_URL: scmhost.url,
      SCMHOST_TOKEN: secrets.SCMHOST_TOKEN,
      SCMHOST_WEBHOOK_SECRET: secrets.SCMHOST_WEBHOOK_SECRET,
      SCMHOST_KNOWN_REPOS: SANDBOX_REPOSITORY,
      SCMHOST_BOT_LOGIN: SANDBOX_BOT_LOGIN,
      SERVICE_REPOS_CONFIG_PATH: file(REGISTRY_FILE),
      [SANDBOX_GITLAB_TOKEN_ENV]: gitlabToken,
      [SANDBOX_GITLAB_WEBHOOK_SECRET_ENV]: gitlabWebhookSecret,
      SERVICE_OPERATOR_TOKEN: operatorToken,
      ...(model ? {
        MODEL_CONNECTIONS: JSON.stringify({ sandbox: { backend: 'openai-compatible', base_url: model.url, allowed_models: [SANDBOX_MODEL], capabilities: ['structured_output', 'tools'] } }),
        MODEL_DEFAULT: JSON.stringify({ connection: 'sandbox', model: SANDBOX_MODEL }),
      } : {}),
    };
    const userModel = userModelVariables(options.env);
    return {
      tracker,
      scmhost,
      gitlab,
      model,
      env,
      stateDir,
      connect(gatewayUrl) {
        tracker.webhooks.setTarget({ url: `${gatewayUrl}/api/v1/webhooks/tracker`, secret: secrets.TRACKER_WEBHOOK_SECRET });
        scmhost.webhooks.setTarget({ url: `${gatewayUrl}/api/v1/webhooks/scmhost`, secret: secrets.SCMHOST_WEBHOOK_SECRET });
        gitlab.webhooks.setTarget({ url: `${gatewayUrl}/api/v1/webhooks/gitlab`, secret: gitlabWebhookSecret });
        settings.urls.gateway = gatewayUrl;
        saveSettings();
      },
      describe() {
        const issues = tracker.state.issues.size;
        return [
          `  Sandbox      tracker ${tracker.url} (project ${SANDBOX_PROJECT}), source host ${scmhost.url} (repository ${SANDBOX_REPOSITORY})`,
          `               GitLab  ${gitlab.url} (project ${SANDBOX_GITLAB_PROJECT}, for the tickets of tracker project ${SANDBOX_GITLAB_TRACKER_PROJECT}: service sandbox create-ticket "Try me" --project ${SANDBOX_GITLAB_TRACKER_PROJECT})`,
          model
            ? `               model   ${model.url} (simulated: minimal documents that fit the requested schema; set MODEL_* or LLM_* for a real one)`
            : `               model   yours (${userModel.join(', ')}), not simulated`,
          `               state   ${stateDir} (${issues} ticket${issues === 1 ? '' : 's'} kept, git repositories in ${GIT_FOLDER}/; removed with the database)`,
          `               webhook secrets (X-Hub-Signature / X-Hub-Signature-256 = sha256=<hex HMAC-SHA256 of the body>):`,
          `                 TRACKER_WEBHOOK_SECRET=${secrets.TRACKER_WEBHOOK_SECRET}`,
          `                 SCMHOST_WEBHOOK_SECRET=${secrets.SCMHOST_WEBHOOK_SECRET}`,
          `                 ${SANDBOX_GITLAB_WEBHOOK_SECRET_ENV}=${gitlabWebhookSecret} (GitLab sends it as X-Gitlab-Token)`,
          `               read API token (SERVICE_OPERATOR_TOKEN): ${operatorToken}`,
          `                 curl -H "authorization: Bearer ${operatorToken}" ${settings.urls.gateway ?? 'http://127.0.0.1:8000'}/api/v1/workflows/SBX-1/execution`,
          `               simulators' REST (the tracker takes any e-mail and token; the source-host token acts as ${SANDBOX_REVIEWER_LOGIN}):`,
          `                 curl -u ${SANDBOX_SERVICE_EMAIL}:${secrets.TRACKER_API_TOKEN} '${tracker.url}/rest/api/3/issue/SBX-1?fields=summary,status,labels,comment'`,
          `                 curl -H "authorization: Bearer ${secrets.reviewer_token}" ${scmhost.url}/repos/${SANDBOX_REPOSITORY}/pulls/1/files`,
          `                 curl -H "authorization: Bearer ${secrets.reviewer_token}" -H 'accept: application/vnd.github.diff' ${scmhost.url}/repos/${SANDBOX_REPOSITORY}/pulls/1`,
          `                 pull request pages (the link on the ticket; no token from this machine): ${scmhost.url}/${SANDBOX_REPOSITORY}/pull/1`,
          `               read a ticket: service sandbox show SBX-1 (its comments, labels, pull requests and their diffs)`,
          `               act as a person: service sandbox create-ticket "Try me" | comment SBX-1 "text" | label SBX-1 <label> | approve SBX-1 [--pr] | check SBX-1 [--conclusion failure] | review SBX-1 "text" | merge SBX-1 | commit-main <path> "text"`,
          `                 (as ${SANDBOX_PERSON_EMAIL} in the tracker and ${SANDBOX_REVIEWER_LOGIN} on the source host; --as <email> acts as someone else)`,
          `                 (npx service sandbox --help; they find this stack, and ask for --data-dir when two run)`,
          ...gitWarning.map((line) => `  ${line}`),
        ];
      },
      async close() {
        // The simulators first (they deliver queued webhooks and release held faults), then the last write.
        await Promise.all(started.map((part) => part.close()));
        for (const part of persisted) part.close();
      },
    };
  } catch (error) {
    for (const part of persisted) part.close();
    await Promise.all(started.map((part) => part.close().catch(() => undefined)));
    throw error;
  }
}
