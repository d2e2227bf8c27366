import { join, resolve } from 'node:path';
import { parseLogLevel, type LogLevel } from '../logging/logger';
import { checkTemporalAddress, DEFAULT_STORE_URL, parseStoreUrl, type StoreUrlResult } from './store-url';
import { DEFAULT_SHUTDOWN_GRACE_SECONDS, MAX_SHUTDOWN_GRACE_SECONDS, SHUTDOWN_GRACE_VARIABLE } from '../process/shutdown-grace';
import { DEFAULT_GATEWAY_MAX_CONNECTIONS, DEFAULT_PENDING_BODY_LIMITS, MIB, MIN_PENDING_BODY_MIB, type PendingBodyLimits } from './gateway-limits';

/**
 * Every environment variable of SPEC 2.11 (plus the few this implementation adds for Temporal and ports), parsed and
 * validated in one pass so that startup can print one line per problem instead of failing on the first.
 * Problem lines never echo the value of a secret variable.
 */

export const TRACE_ATTRIBUTES = [
  'ticket_key', 'ticket_type', 'project_id', 'workflow_step', 'repo', 'pr_number', 'ci_status', 'event_source',
  'event_type', 'llm_model',
] as const;
/**
 * Ticket workflows one worker keeps in memory. A cached parked ticket adds about 0.5 MiB to the worker's RSS (its state
 * and sandbox in the workflow thread, its run in the SDK's core): with 10,000 parked tickets a cache of 1,000 held the
 * worker at 750 MiB and 1,500 at 1,000 MiB (docs/benchmarks.md "Many parked tickets"), where the SDK's own default (from Node's
 * heap limit: 2,310 here) took it to 1.8 GiB. More tickets active at once than this means replays on every task.
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 1_000;
/** See src/process/heap-growth.ts. */
export const DEFAULT_HEAP_GROWING_PERCENT = 25;

export const TRACE_METADATA_ATTRIBUTES = [...TRACE_ATTRIBUTES, 'retry_count', 'system_prompt_length'] as const;

export interface ServiceConfig {
  tracker: { baseUrl?: string; userEmail?: string; apiToken?: string; webhookSecret?: string };
  /**
   * allowUnsigned: SERVICE_ALLOW_UNSIGNED_WEBHOOKS, the explicit opt-in without which the gateway refuses to start
   * while a webhook secret is unset (src/config/webhook-secrets.ts). Local testing only.
   */
  webhooks: { allowUnsigned: boolean };
  /**
   * `draftRepos`: repositories (`owner/name`, or `*`) whose pull requests the service opens as drafts (SCMHOST_DRAFT_REPOS).
   * `forkRepos`: GitHub repositories (`owner/name`, or `*`) changed through the service account's fork (SCMHOST_FORK_REPOS).
   */
  scmhost: { token?: string; webhookSecret?: string; defaultRepo?: string; knownRepos: string[]; botLogin?: string; apiUrl?: string; draftRepos: string[]; forkRepos?: string[] };
  botCommentPrefix?: string;
  /**
   * tls: set when the connection to Temporal uses TLS (any TEMPORAL_TLS* variable, or TEMPORAL_TLS=true); apiKey:
   * TEMPORAL_API_KEY, sent as a bearer token (TLS is then on unless TEMPORAL_TLS=false). The names are Temporal's own.
   */
  temporal: { address: string; namespace: string; taskQueue: string; tls?: TemporalTlsFiles; apiKey?: string };
  operatorToken?: string;
  effectOperatorToken?: string;
  /**
   * The console under /console/ (issue 45, src/console): served unless SERVICE_CONSOLE_ENABLED=false, behind
   * SERVICE_OPERATOR_TOKEN. temporalUiUrl (TEMPORAL_UI_URL) lets a ticket's page link its workflow in the Temporal UI.
   */
  console: { enabled: boolean; temporalUiUrl?: string };
  requireProjectConfig: boolean;
  reposConfigPath?: string;
  prdProposals: { repo?: string; path?: string };
  ci: { ignoredChecks: string[]; maxFixAttempts: number };
  container: {
    image: string; memoryLimit: string; cpuLimit: number; timeoutSeconds: number;
    /** Process limit per container (CONTAINER_PIDS_LIMIT). */
    pidsLimit: number;
    /** Repositories (`owner/name`, or `*`) whose containers get network (CONTAINER_EGRESS); none by default. */
    egressRepos: string[];
    /** Where workspaces are cloned (CONTAINER_WORK_DIR); kept until the station's push effect has run. */
    workDir: string;
    /** The unprivileged account a root worker runs podman as (SERVICE_PODMAN_USER). */
    podmanUser: string;
    /** The agent's step cap and the time limit of one command it runs (AGENT_MAX_STEPS, AGENT_COMMAND_TIMEOUT). */
    agentMaxSteps: number;
    agentCommandTimeoutSeconds: number;
  };
  autoReview: { maxRetries: number; pollIntervalSeconds: number; recordPolledFiles: 'none' | 'log' | 'copy' };
  tracing: {
    enabled: boolean; publicKey?: string; secretKey?: string; host?: string; traceTags: string[]; traceMetadata: string[];
  };
  logLevel: LogLevel;
  /** Durable effects: the time one attempt may take, and what retention keeps on continue-as-new. */
  effects: { timeoutSeconds: number; retainTimelineEntries: number; retainTerminalEffects: number; historyEventLimit: number };
  /** The poller: interval 0 switches it off; the lookback defaults to several intervals. */
  poller: { intervalSeconds: number; lookbackSeconds?: number; overlapSeconds: number };
  /**
   * metrics: where the gateway's /metrics is served apart from the public port (SERVICE_GATEWAY_METRICS_HOST and
   * _PORT); unset, the public port serves it. maxConnections: the connections the public port holds at once
   * (SERVICE_GATEWAY_MAX_CONNECTIONS). pendingBodies: what webhook bodies may hold before their signature is checked
   * (SERVICE_GATEWAY_MAX_PENDING_BODIES, _PER_ROUTE, SERVICE_GATEWAY_MAX_PENDING_BODY_MIB; src/gateway/pending-body-budget.ts).
   */
  gateway: { host: string; port: number; metrics?: { host: string; port: number }; maxConnections: number; pendingBodies: PendingBodyLimits };
  /** SERVICE_METRICS_TOKEN: when set, the gateway's and the worker's /metrics need it as a bearer token. */
  metrics?: { token?: string };
  /**
   * maxCachedWorkflows: the worker's workflow cache (SERVICE_WORKER_MAX_CACHED_WORKFLOWS). heapGrowingPercent: how far
   * V8 lets a heap grow past what its last full collection kept (SERVICE_WORKER_HEAP_GROWING_PERCENT); 0 leaves V8's own.
   */
  worker: { metricsHost: string; metricsPort: number; maxCachedWorkflows: number; heapGrowingPercent: number };
  /** What a stopping gateway and worker give the work in flight (SERVICE_SHUTDOWN_GRACE_SECONDS, src/process/shutdown-grace.ts). */
  shutdown: { graceSeconds: number };
}

export interface ConfigResult {
  config?: ServiceConfig;
  problems: string[];
  warnings: string[];
}

class Reader {
  readonly problems: string[] = [];
  readonly warnings: string[] = [];
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Unset and empty are the same: the spec says an empty secret disables the check. */
  str(name: string): string | undefined {
    const value = this.env[name];
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }

  /** Reads a variable that has an alias; both set to different values is ambiguous, so it is a problem. */
  aliased(name: string, alias: string): { name: string; value: string | undefined } {
    const primary = this.str(name);
    const secondary = this.str(alias);
    if (primary !== undefined && secondary !== undefined && primary !== secondary) {
      this.problems.push(`${name} and its alias ${alias} are both set, to different values ("${primary}" and "${secondary}"): keep one`);
    }
    return primary !== undefined ? { name, value: primary } : { name: alias, value: secondary };
  }

  url(name: string): string | undefined {
    const value = this.str(name);
    if (value === undefined) return undefined;
    try {
      const url = new URL(value);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
      return value.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name}: expected an http(s) URL, got "${value}"`);
      return undefined;
    }
  }

  int(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER, value = this.str(name)): number {
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name}: expected a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}, got "${value}"`);
      return fallback;
    }
    return Number(value);
  }

  number(name: string, fallback: number, minExclusive: number, value = this.str(name)): number {
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value) || !(parsed > minExclusive)) {
      this.problems.push(`${name}: expected a number greater than ${minExclusive}, got "${value}"`);
      return fallback;
    }
    return parsed;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.str(name);
    if (value === undefined) return fallback;
    const lowered = value.toLowerCase();
    if (['true', '1', 'yes'].includes(lowered)) return true;
    if (['false', '0', 'no'].includes(lowered)) return false;
    this.problems.push(`${name}: expected true or false, got "${value}"`);
    return fallback;
  }

  repo(name: string, value = this.str(name)): string | undefined {
    if (value === undefined) return undefined;
    if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(value)) {
      this.problems.push(`${name}: expected owner/repo, got "${value}"`);
      return undefined;
    }
    return value;
  }

  list(name: string): string[] {
    const value = this.str(name);
    return value === undefined ? [] : value.split(',').map((item) => item.trim()).filter(Boolean);
  }
}

/** Files of a TLS connection to Temporal; all optional (TLS with the system's roots and no client certificate). */
export interface TemporalTlsFiles {
  clientCertPath?: string;
  clientKeyPath?: string;
  serverCaCertPath?: string;
  serverName?: string;
}

/** TLS and the API key toward Temporal, with the variable names Temporal's own CLI and SDKs read. */
function temporalSecurity(r: Reader): { tls?: TemporalTlsFiles; apiKey?: string } {
  const files: TemporalTlsFiles = {
    clientCertPath: r.str('TEMPORAL_TLS_CLIENT_CERT_PATH'),
    clientKeyPath: r.str('TEMPORAL_TLS_CLIENT_KEY_PATH'),
    serverCaCertPath: r.str('TEMPORAL_TLS_SERVER_CA_CERT_PATH'),
    serverName: r.str('TEMPORAL_TLS_SERVER_NAME'),
  };
  const given = Object.entries(files).filter(([, value]) => value !== undefined);
  const apiKey = r.str('TEMPORAL_API_KEY');
  const explicit = r.str('TEMPORAL_TLS') === undefined ? undefined : r.bool('TEMPORAL_TLS', false);
  if ((files.clientCertPath === undefined) !== (files.clientKeyPath === undefined)) {
    r.problems.push('TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH: set both (a client certificate and its key) or neither');
  }
  if (explicit === false && given.length > 0) {
    r.problems.push(`TEMPORAL_TLS: "false" contradicts ${given.map(([name]) => `TEMPORAL_TLS_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`).join(', ')}`);
  }
  // An API key alone means TLS too (Temporal Cloud); TEMPORAL_TLS=false keeps it plaintext, e.g. behind a local proxy.
  const tls = explicit === true || given.length > 0 || (apiKey !== undefined && explicit !== false)
    ? Object.fromEntries(given) as TemporalTlsFiles
    : undefined;
  return { ...(tls ? { tls } : {}), ...(apiKey ? { apiKey } : {}) };
}

type AliasedValue = ReturnType<Reader['aliased']>;

/** STORE_URL and TEMPORAL_ADDRESS, checked first; the address and namespace toward Temporal fall back to the store's. */
function temporalTarget(r: Reader): { store: StoreUrlResult; temporalAddress?: string } {
  const storeUrl = r.str('STORE_URL') ?? DEFAULT_STORE_URL;
  const store = parseStoreUrl(storeUrl);
  if (!store.ok) r.problems.push(`STORE_URL: ${store.problem}`);
  const temporalAddress = r.str('TEMPORAL_ADDRESS');
  if (temporalAddress !== undefined) {
    const problem = checkTemporalAddress(temporalAddress);
    if (problem) r.problems.push(`TEMPORAL_ADDRESS: ${problem}`);
  }
  return { store, temporalAddress };
}

function containerMemoryLimit(r: Reader): AliasedValue {
  const memory = r.aliased('CONTAINER_MEMORY_LIMIT', 'CONTAINER_MEMORY');
  if (memory.value !== undefined && !/^\d+(\.\d+)?[bkmg]?$/i.test(memory.value)) {
    r.problems.push(`${memory.name}: expected a size like 512m or 4g, got "${memory.value}"`);
  }
  return memory;
}

function autoReviewRecordPolledFiles(r: Reader): string {
  const recordPolled = (r.str('AUTO_REVIEW_RECORD_POLLED_FILES') ?? 'none').toLowerCase();
  if (!['none', 'log', 'copy'].includes(recordPolled)) {
    r.problems.push(`AUTO_REVIEW_RECORD_POLLED_FILES: expected none, log or copy, got "${recordPolled}"`);
  }
  return recordPolled;
}

function logLevelSetting(r: Reader): LogLevel | undefined {
  const rawLevel = r.str('LOG_LEVEL');
  const logLevel = parseLogLevel(rawLevel ?? 'info');
  if (!logLevel) r.problems.push(`LOG_LEVEL: expected DEBUG, INFO, WARNING or ERROR, got "${rawLevel}"`);
  return logLevel;
}

function traceAttributeLists(r: Reader): { traceTags: string[]; traceMetadata: string[] } {
  const traceTags = r.list('TRACING_TRACE_TAGS');
  const traceMetadata = r.list('TRACING_TRACE_METADATA');
  for (const tag of traceTags.filter((t) => !(TRACE_ATTRIBUTES as readonly string[]).includes(t))) {
    r.warnings.push(`TRACING_TRACE_TAGS: unknown trace attribute "${tag}" is ignored`);
  }
  for (const tag of traceMetadata.filter((t) => !(TRACE_METADATA_ATTRIBUTES as readonly string[]).includes(t))) {
    r.warnings.push(`TRACING_TRACE_METADATA: unknown trace attribute "${tag}" is ignored`);
  }
  return { traceTags, traceMetadata };
}

function botCommentPrefix(r: Reader, env: NodeJS.ProcessEnv): string | undefined {
  const botPrefix = env.SERVICE_BOT_COMMENT_PREFIX && env.SERVICE_BOT_COMMENT_PREFIX.length > 0 ? env.SERVICE_BOT_COMMENT_PREFIX : undefined;
  if (botPrefix !== undefined) {
    r.warnings.push('SERVICE_BOT_COMMENT_PREFIX is set: it is meant for development and tests only, not production');
  }
  return botPrefix;
}

function scmhostRepoLists(r: Reader): { knownRepos: string[]; forkRepos: string[] } {
  const knownRepos = r.list('SCMHOST_KNOWN_REPOS');
  for (const repo of knownRepos) r.repo('SCMHOST_KNOWN_REPOS', repo);
  const forkRepos = r.list('SCMHOST_FORK_REPOS');
  for (const repo of forkRepos) if (repo !== '*') r.repo('SCMHOST_FORK_REPOS', repo);
  return { knownRepos, forkRepos };
}

function trackerSettings(r: Reader): ServiceConfig['tracker'] {
  return {
    baseUrl: r.url('TRACKER_BASE_URL'),
    userEmail: r.str('TRACKER_USER_EMAIL'),
    apiToken: r.str('TRACKER_API_TOKEN'),
    webhookSecret: r.str('TRACKER_WEBHOOK_SECRET'),
  };
}

function scmhostSettings(r: Reader, repos: { knownRepos: string[]; forkRepos: string[] }): ServiceConfig['scmhost'] {
  return {
    token: r.str('SCMHOST_TOKEN'),
    webhookSecret: r.str('SCMHOST_WEBHOOK_SECRET'),
    defaultRepo: r.repo('SCMHOST_DEFAULT_REPO'),
    knownRepos: repos.knownRepos,
    botLogin: r.str('SCMHOST_BOT_LOGIN'),
    apiUrl: r.url('SCMHOST_API_URL'),
    draftRepos: r.list('SCMHOST_DRAFT_REPOS'),
    forkRepos: repos.forkRepos,
  };
}

function temporalSettings(r: Reader, target: { store: StoreUrlResult; temporalAddress?: string }): ServiceConfig['temporal'] {
  const { store, temporalAddress } = target;
  return {
    address: temporalAddress ?? (store.ok ? store.store.address : '127.0.0.1:7233'),
    namespace: r.str('TEMPORAL_NAMESPACE') ?? (store.ok ? store.store.namespace : 'default'),
    taskQueue: r.str('SERVICE_TASK_QUEUE') ?? 'service-tickets',
    ...temporalSecurity(r),
  };
}

function containerSettings(r: Reader, memory: AliasedValue, cpus: AliasedValue): ServiceConfig['container'] {
  return {
    image: r.str('CONTAINER_IMAGE') ?? 'service-dev:latest',
    memoryLimit: (memory.value ?? '4g').toLowerCase(),
    cpuLimit: r.number(cpus.name, 2, 0, cpus.value),
    timeoutSeconds: r.int('CONTAINER_TIMEOUT', 1800, 1),
    pidsLimit: r.int('CONTAINER_PIDS_LIMIT', 1024, 16),
    egressRepos: r.list('CONTAINER_EGRESS'),
    workDir: resolve(r.str('CONTAINER_WORK_DIR') ?? join('.data', 'workspaces')),
    podmanUser: r.str('SERVICE_PODMAN_USER') ?? 'service-podman',
    agentMaxSteps: r.int('AGENT_MAX_STEPS', 60, 1, 1000),
    agentCommandTimeoutSeconds: r.int('AGENT_COMMAND_TIMEOUT', 300, 1),
  };
}

function autoReviewSettings(r: Reader, recordPolled: string): ServiceConfig['autoReview'] {
  return {
    maxRetries: r.int('AUTO_REVIEW_MAX_RETRIES', 3, 0, 100),
    pollIntervalSeconds: r.number('AUTO_REVIEW_POLL_INTERVAL', 5.0, 0),
    recordPolledFiles: recordPolled as ServiceConfig['autoReview']['recordPolledFiles'],
  };
}

function tracingSettings(r: Reader, lists: { traceTags: string[]; traceMetadata: string[] }): ServiceConfig['tracing'] {
  return {
    enabled: r.bool('TRACING_ENABLED', false),
    publicKey: r.str('TRACING_PUBLIC_KEY'),
    secretKey: r.str('TRACING_SECRET_KEY'),
    host: r.url('TRACING_HOST'),
    traceTags: lists.traceTags.filter((t) => (TRACE_ATTRIBUTES as readonly string[]).includes(t)),
    traceMetadata: lists.traceMetadata.filter((t) => (TRACE_METADATA_ATTRIBUTES as readonly string[]).includes(t)),
  };
}

function effectsSettings(r: Reader): ServiceConfig['effects'] {
  return {
    timeoutSeconds: r.int('SERVICE_EFFECT_TIMEOUT_SECONDS', 60, 1, 3600),
    retainTimelineEntries: r.int('SERVICE_RETENTION_TIMELINE_ENTRIES', 2000, 10, 1_000_000),
    retainTerminalEffects: r.int('SERVICE_RETENTION_TERMINAL_EFFECTS', 500, 0, 1_000_000),
    historyEventLimit: r.int('SERVICE_HISTORY_EVENT_LIMIT', 10_000, 50, 50_000),
  };
}

function pollerSettings(r: Reader): ServiceConfig['poller'] {
  return {
    intervalSeconds: r.int('SERVICE_POLL_INTERVAL_SECONDS', 120, 0, 86_400),
    lookbackSeconds: r.str('SERVICE_POLL_LOOKBACK_SECONDS') === undefined ? undefined : r.int('SERVICE_POLL_LOOKBACK_SECONDS', 600, 60, 7 * 86_400),
    overlapSeconds: r.int('SERVICE_POLL_OVERLAP_SECONDS', 60, 0, 3600),
  };
}

function gatewaySettings(r: Reader): ServiceConfig['gateway'] {
  return {
    host: r.str('SERVICE_GATEWAY_HOST') ?? '0.0.0.0',
    port: r.int('SERVICE_GATEWAY_PORT', 8000, 0, 65535),
    ...(r.str('SERVICE_GATEWAY_METRICS_PORT') !== undefined
      ? { metrics: { host: r.str('SERVICE_GATEWAY_METRICS_HOST') ?? '0.0.0.0', port: r.int('SERVICE_GATEWAY_METRICS_PORT', 0, 0, 65535) } }
      : {}),
    maxConnections: r.int('SERVICE_GATEWAY_MAX_CONNECTIONS', DEFAULT_GATEWAY_MAX_CONNECTIONS, 16, 1_000_000),
    pendingBodies: {
      maxBodies: r.int('SERVICE_GATEWAY_MAX_PENDING_BODIES', DEFAULT_PENDING_BODY_LIMITS.maxBodies, 1, 100_000),
      maxBodiesPerRoute: r.int('SERVICE_GATEWAY_MAX_PENDING_BODIES_PER_ROUTE', DEFAULT_PENDING_BODY_LIMITS.maxBodiesPerRoute, 1, 100_000),
      maxBytes: r.int('SERVICE_GATEWAY_MAX_PENDING_BODY_MIB', DEFAULT_PENDING_BODY_LIMITS.maxBytes / MIB, MIN_PENDING_BODY_MIB, 1_000_000) * MIB,
    },
  };
}

function workerSettings(r: Reader): ServiceConfig['worker'] {
  return {
    metricsHost: r.str('SERVICE_WORKER_METRICS_HOST') ?? '0.0.0.0',
    metricsPort: r.int('SERVICE_WORKER_METRICS_PORT', 8001, 0, 65535),
    maxCachedWorkflows: r.int('SERVICE_WORKER_MAX_CACHED_WORKFLOWS', DEFAULT_MAX_CACHED_WORKFLOWS, 2, 1_000_000),
    heapGrowingPercent: r.int('SERVICE_WORKER_HEAP_GROWING_PERCENT', DEFAULT_HEAP_GROWING_PERCENT, 0, 1_000),
  };
}

/** Checks on the assembled config, most of them across variables; they run after every section is read, so their problems come last. */
function checkCombinations(r: Reader, config: ServiceConfig): void {
  if (config.tracker.userEmail !== undefined && !/^[^@\s]+@[^@\s]+$/.test(config.tracker.userEmail)) {
    r.problems.push(`TRACKER_USER_EMAIL: expected an e-mail address, got "${config.tracker.userEmail}"`);
  }
  if ((config.tracker.userEmail === undefined) !== (config.tracker.apiToken === undefined)) {
    r.problems.push('TRACKER_USER_EMAIL and TRACKER_API_TOKEN go together: set both or neither');
  }
  if (r.str('SERVICE_GATEWAY_METRICS_HOST') !== undefined && !config.gateway.metrics) {
    r.problems.push('SERVICE_GATEWAY_METRICS_HOST is set but SERVICE_GATEWAY_METRICS_PORT is not: set the port that serves the gateway\'s /metrics apart from the public port, or unset the host');
  }
  if (config.gateway.metrics && config.gateway.metrics.port !== 0 && config.gateway.metrics.port === config.gateway.port) {
    r.problems.push(`SERVICE_GATEWAY_METRICS_PORT is the public port (SERVICE_GATEWAY_PORT ${config.gateway.port}): choose another port, one that is not reachable from the internet`);
  }
  if (config.gateway.pendingBodies.maxBodies >= config.gateway.maxConnections) {
    r.problems.push(`SERVICE_GATEWAY_MAX_PENDING_BODIES (${config.gateway.pendingBodies.maxBodies}) must be below SERVICE_GATEWAY_MAX_CONNECTIONS (${config.gateway.maxConnections}): bodies waiting for their signature check would take every connection, and the health probes could not connect`);
  }
  if (config.tracing.enabled && (!config.tracing.publicKey || !config.tracing.secretKey)) {
    r.problems.push('TRACING_ENABLED is true but TRACING_PUBLIC_KEY and TRACING_SECRET_KEY are not both set');
  }
}

export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env): ConfigResult {
  const r = new Reader(env);

  // Problems are reported in the order the variables are read: these come first, then the sections in the order of
  // the object below, then the checks across sections. Moving a read changes the order of startup's problem lines.
  const target = temporalTarget(r);
  const memory = containerMemoryLimit(r);
  const cpus = r.aliased('CONTAINER_CPU_LIMIT', 'CONTAINER_CPUS');
  const attempts = r.aliased('CI_MAX_FIX_ATTEMPTS', 'CI_FIX_MAX_RETRIES');
  const recordPolled = autoReviewRecordPolledFiles(r);
  const logLevel = logLevelSetting(r);
  const traceLists = traceAttributeLists(r);
  const botPrefix = botCommentPrefix(r, env);
  const repos = scmhostRepoLists(r);

  const config: ServiceConfig = {
    tracker: trackerSettings(r),
    webhooks: { allowUnsigned: r.bool('SERVICE_ALLOW_UNSIGNED_WEBHOOKS', false) },
    scmhost: scmhostSettings(r, repos),
    botCommentPrefix: botPrefix,
    temporal: temporalSettings(r, target),
    operatorToken: r.str('SERVICE_OPERATOR_TOKEN'),
    effectOperatorToken: r.str('EFFECT_OPERATOR_TOKEN'),
    console: { enabled: r.bool('SERVICE_CONSOLE_ENABLED', true), temporalUiUrl: r.url('TEMPORAL_UI_URL') },
    requireProjectConfig: r.bool('SERVICE_REQUIRE_PROJECT_CONFIG', true),
    reposConfigPath: r.str('SERVICE_REPOS_CONFIG_PATH'),
    prdProposals: { repo: r.repo('PRD_PROPOSALS_REPO'), path: r.str('PRD_PROPOSALS_PATH') },
    ci: { ignoredChecks: r.list('CI_IGNORED_CHECKS'), maxFixAttempts: r.int(attempts.name, 5, 0, 100, attempts.value) },
    container: containerSettings(r, memory, cpus),
    autoReview: autoReviewSettings(r, recordPolled),
    tracing: tracingSettings(r, traceLists),
    logLevel: logLevel ?? 'info',
    effects: effectsSettings(r),
    poller: pollerSettings(r),
    gateway: gatewaySettings(r),
    metrics: { token: r.str('SERVICE_METRICS_TOKEN') },
    worker: workerSettings(r),
    shutdown: { graceSeconds: r.int(SHUTDOWN_GRACE_VARIABLE, DEFAULT_SHUTDOWN_GRACE_SECONDS, 0, MAX_SHUTDOWN_GRACE_SECONDS) },
  };

  checkCombinations(r, config);
  return r.problems.length > 0 ? { problems: r.problems, warnings: r.warnings } : { config, problems: [], warnings: r.warnings };
}
