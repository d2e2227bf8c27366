import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { InjectedSinks, NativeConnection as NativeConnectionType, Worker as WorkerType } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { createPollActivities } from '../activities/poll-activities';
import { createEffectActivities } from '../activities/effect-activities';
import { createProjectConfigActivities } from '../activities/project-config-activities';
import { createGitRemotes } from './containers/git-remote';
import { proposalDeps } from '../activities/stations/planning/proposal-deps';
import { removeFinishedOwnContainers, sweepOrphansInBackground } from './containers/orphan-sweep';
import { containerWorkDir } from './containers/mount-access';
import { sweepStaleWorkspaces } from './containers/workspace-sweep';
import { resolvePodmanAccount } from './containers/podman-account';
import { loadRepositoryRegistry } from './config/repository-registry';
import { createGitLabRepositories } from './providers/gitlab/gitlab-repositories';
import { createIntakeStation } from '../activities/stations/intake-station';
import { createStationActivities } from '../activities/stations/station-activities';
import { createBudgetGuard } from '../activities/stations/budget-guard';
import { budgetDefaultsFromEnv, NEARLY_EXHAUSTED_RATIO } from './budgets/token-budget';
import { createPlanningStations } from '../activities/stations/planning-stations';
import { createBugStations } from '../activities/stations/bug-stations';
import { createTakeoverStations } from '../activities/stations/takeover-stations';
import { createCodeChangeStations } from '../activities/stations/code-change-stations';
import { createDraftEditActivities } from '../activities/draft-edit-activities';
import { createActorActivities } from '../activities/actor-activities';
import { allowedActorsWarnings } from './config/allowed-actors';
import { parseModelConfiguration, type ModelConfiguration } from './config/model-configuration';
import { createModelClient } from './models/model-client';
import { startTracing, type Tracing } from './tracing/start-tracing';
import { modelMetricsFrom } from './models/model-metrics';
import type { StationActivity } from '../workflows/runtime/station-types';
import { TemporalTicketWorkflows, ticketSettings } from './temporal/ticket-workflows';
import { learnTrackerAccountId, loopGuardOf, trackerAccountReport } from './ingress/loop-guard';
import { ensurePollerSchedule, pausePollerSchedule, pollLookbackSeconds } from './poller/poller-schedule';
import { createScmhostClient } from './providers/scmhost/scmhost-client';
import { createTrackerClient } from './providers/tracker/tracker-client';
import { trackerGroupMembership } from './providers/tracker/group-membership-cache';
import type { ServiceConfig } from './config/service-config';
import { listen, type ListeningServer } from './http/listen';
import type { Logger } from './logging/logger';
import { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics';
import { answerMetrics } from './metrics/metrics-endpoint';
import { ensureSearchAttributes, waitUntilSearchAttributesUsable } from './temporal/search-attributes';
import { limitHeapGrowth } from './process/heap-growth';
import { temporalConnectionOptions } from './temporal/connection-options';
import { workerDeploymentOptions, workerVersionFromEnv } from './temporal/worker-versioning';
import type { ServiceMetricsSinks } from '../workflows/read-model/metrics-sink';
import { SEARCH_ATTRIBUTE_TYPES } from '../workflows/messages';
import { workerShutdownTimes } from './process/shutdown-grace';
import { containerRunsSettled, PLAIN_PROCESS_AGENT_ENV } from './containers/run-container';
import { healthRequestHandler } from './health/health-endpoints';
import { workerReadiness } from './health/service-readiness';
import { countEffectAttempts, measureStations } from './metrics/activity-metrics';

export interface RunningWorker {
  metricsUrl: string;
  /** Resolves when the worker has stopped polling and finished in-flight tasks. */
  done: Promise<void>;
  stop(): Promise<void>;
}

let runtimeInstalled = false;

function workerSinks(metrics: ServiceMetrics): InjectedSinks<ServiceMetricsSinks> {
  return {
    serviceMetrics: {
      workflowStarted: { fn: (_info, type) => metrics.workflowsStarted.inc({ type }) },
      workflowCompleted: { fn: (_info, type) => metrics.workflowsCompleted.inc({ type }) },
      workflowFailed: { fn: (_info, type) => metrics.workflowsFailed.inc({ type }) },
      waitEnded: { fn: (_info, seconds) => metrics.waitingAge.observe(seconds) },
      phaseEnded: { fn: (_info, phase, seconds) => metrics.phaseDuration.observe({ phase }, seconds) },
      ticketBlocked: { fn: (_info, reason) => metrics.ticketsBlocked.inc({ reason }) },
    },
  };
}

export interface WorkerOptions {
  /**
   * Station implementations added to (or replacing) the built-in ones, by station name. Used by tests that drive a
   * definition of their own; a definition naming a station no worker implements blocks with station_not_available.
   */
  stations?: Record<string, StationActivity>;
  /** The deployment's model configuration (validated at startup); read from the environment when not given. */
  models?: ModelConfiguration;
}

/** The activities of every workflow, created once per worker from its configuration (createActivities(deps) style). */
function createActivities(config: ServiceConfig, connection: Connection, metrics: ServiceMetrics, logger: Logger, options: WorkerOptions, tracing: Tracing) {
  const onLatency = (service: string, seconds: number) => metrics.externalApiLatency.observe({ service }, seconds);
  const { baseUrl, userEmail, apiToken } = config.tracker;
  const token = config.scmhost.token;
  const tracker = baseUrl && userEmail && apiToken ? createTrackerClient({ baseUrl, email: userEmail, apiToken, onLatency }) : undefined;
  let scmhostClient: ReturnType<typeof createScmhostClient> | undefined;
  // Created on first use: the GitHub client loads ESM modules, which the worker should not pay for when unused.
  const scmhost = token ? () => (scmhostClient ??= createScmhostClient({ token, baseUrl: config.scmhost.apiUrl, botLogin: config.scmhost.botLogin, onLatency })) : undefined;
  const repositories = [...new Set([...config.scmhost.knownRepos, ...(config.scmhost.defaultRepo ? [config.scmhost.defaultRepo] : [])])];
  const projectConfig = createProjectConfigActivities({
    properties: tracker,
    requireProjectConfig: config.requireProjectConfig,
    fallbackRepositories: config.scmhost.knownRepos,
    fallbackDefaultRepo: config.scmhost.defaultRepo,
  });
  const pollerGuard = loopGuardOf(config);
  // The timer of a failed lookup is unref'd: it never keeps a stopping worker alive.
  if (tracker) learnTrackerAccountId(pollerGuard, () => tracker.serviceAccountId().then((accountId) => ({ accountId })), trackerAccountReport(logger.child({ component: 'poller' })));
  const modelConfig = options.models ?? parseModelConfiguration(process.env).config;
  const registry = loadRepositoryRegistry();
  const remotes = createGitRemotes({ scmhostApiUrl: config.scmhost.apiUrl ?? 'https://api.github.com', scmhostToken: token, registry, githubForkRepos: config.scmhost.forkRepos });
  // GitLab projects of the repository registry (SERVICE_REPOS_CONFIG_PATH): merge requests, notes and pipelines.
  const gitlab = registry && registry.repositories.size > 0 ? createGitLabRepositories(registry, { onLatency }) : undefined;
  // The host stations of the three graphs write to the tracker and read its project properties: without a tracker
  // they are not available, and a ticket that reaches one blocks with station_not_available rather than pretend.
  const models = createModelClient({ metrics: modelMetricsFrom(metrics), tracing });
  const hostDeps = tracker && modelConfig
    ? {
      tracker, properties: tracker, models, modelConfig,
      repositories: projectConfig.checkProjectRepositories,
      repositoryReader: scmhost,
      proposals: proposalDeps(config, tracker, remotes, scmhost),
    }
    : undefined;
  const planning = hostDeps ? { ...createPlanningStations(hostDeps), ...createBugStations(hostDeps), ...createTakeoverStations(hostDeps) } : {};
  // Delivery changes code and opens pull requests on a source host: without GitHub's token or a GitLab project in
  // the registry there is nothing to push to, and a ticket that reaches delivery blocks with station_not_available
  // instead of failing on a clone.
  const delivery = modelConfig && (token || gitlab)
    ? createCodeChangeStations({
      config, modelConfig, models, tracker, properties: tracker, remotes, logger, scmhost, gitlab, onCiFixAttempt: () => metrics.ciFixAttempts.inc(), tracing,
      repositories: projectConfig.checkProjectRepositories,
    })
    : {};
  const activities = {
    ...createDraftEditActivities(),
    ...createActorActivities({ properties: tracker, groupsOf: tracker ? trackerGroupMembership(tracker).groupsOf : undefined }),
    ...createPollActivities({
      tracker,
      scmhost,
      scmhostRepositories: repositories,
      gitlabProjects: gitlab && registry ? () => [...registry.repositories.values()].map((entry) => ({ namespace: entry.namespace, client: gitlab(entry.name)!.client })) : undefined,
      workflows: new TemporalTicketWorkflows(connection, config.temporal.namespace, config.temporal.taskQueue, ticketSettings(config)),
      guard: pollerGuard,
      logger: logger.child({ component: 'poller' }),
    }),
    ...countEffectAttempts(createEffectActivities({
      tracker, scmhost, gitlab, logger: logger.child({ component: 'effects' }),
      git: { remotes, scmhost },
    }), metrics),
    ...projectConfig,
    ...measureStations(createStationActivities({
      implemented: { ...createIntakeStation(projectConfig.checkProjectRepositories), ...planning, ...delivery, ...options.stations },
      budget: createBudgetGuard({
        defaults: budgetDefaultsFromEnv(process.env),
        properties: tracker,
        onSpent: (stage, tokens) => metrics.tokensSpent.inc({ stage }, tokens),
        onBudgetUse: (use, attempt) => {
          metrics.tokenBudgetUsed.observe({ scope: use.scope }, use.ratio);
          // The histogram says that some ticket is close to its budget (ServiceBudgetNearlyExhausted); this says which.
          if (use.ratio > NEARLY_EXHAUSTED_RATIO) logger.warn('token budget nearly used', { ...attempt, scope: use.scope, used: Number(use.ratio.toFixed(3)) });
        },
      }),
    }), metrics),
  };
  // Container stations are registered only with a model and a source host: only then does podman matter.
  return { activities, runsContainers: Object.keys(delivery).length > 0 };
}

async function configurePoller(client: Client, config: ServiceConfig, logger: Logger): Promise<void> {
  try {
    if (config.poller.intervalSeconds === 0) {
      if (await pausePollerSchedule(client, config.temporal.taskQueue, 'SERVICE_POLL_INTERVAL_SECONDS=0')) logger.info('poller schedule paused (SERVICE_POLL_INTERVAL_SECONDS=0)');
      return;
    }
    const outcome = await ensurePollerSchedule(client, {
      intervalSeconds: config.poller.intervalSeconds,
      lookbackSeconds: pollLookbackSeconds(config.poller.intervalSeconds, config.poller.lookbackSeconds),
      overlapSeconds: config.poller.overlapSeconds,
      taskQueue: config.temporal.taskQueue,
    });
    logger.info(`poller schedule ${outcome}`, { every_seconds: config.poller.intervalSeconds });
  } catch (error) {
    logger.warn('could not create or update the poller schedule; webhooks still work, recovery by polling does not', { error: (error as Error).message });
  }
}

/**
 * The containers' account must reach the work folder (issue 30, point 7): a default one under a private checkout
 * moves, one the operator chose is kept with an error line saying what to change. Without podman set up there is nothing to
 * check yet; container stations say so when they run.
 */
function withReachableWorkDir(config: ServiceConfig, logger: Logger): ServiceConfig {
  let account;
  try {
    account = resolvePodmanAccount({ ...process.env, SERVICE_PODMAN_USER: config.container.podmanUser });
  } catch {
    return config;
  }
  let chosen;
  try {
    chosen = containerWorkDir({ workDir: config.container.workDir, explicit: Boolean(process.env.CONTAINER_WORK_DIR?.trim()), account });
  } catch (error) {
    logger.error((error as Error).message);
    return config;
  }
  if (chosen.moved) logger.warn(chosen.moved);
  if (chosen.unreachable) logger.error(chosen.unreachable);
  return { ...config, container: { ...config.container, workDir: chosen.workDir } };
}

/** Station folders left by failed or abandoned stations, in the background (issue 30, point 9). */
function sweepWorkspacesInBackground(workDir: string, logger: Logger): void {
  void sweepStaleWorkspaces(workDir).then(
    ({ removed, failed }) => {
      if (removed.length > 0) logger.info('removed stale station folders', { count: removed.length, work_dir: workDir });
      for (const failure of failed) logger.warn('could not remove a stale station folder', { work_dir: workDir, folder: failure.path, error: failure.error });
    },
    (error: unknown) => logger.warn('could not sweep stale station folders', { error: (error as Error).message }),
  );
}

/**
 * Runs the worker: ticket workflows (and, as they land, activities and the poller) on the configured task queue,
 * with Prometheus metrics on its own port. The caller owns process signals: the Temporal runtime's own handlers are
 * disabled so that `service dev` can stop the worker before it stops the server the worker is polling.
 */
/** The workflow needs its search attributes registered; against a shared cluster the operator may have done it. */
async function registerSearchAttributes(client: Connection, config: ServiceConfig, logger: Logger): Promise<void> {
  try {
    const result = await ensureSearchAttributes(client, config.temporal.namespace, SEARCH_ATTRIBUTE_TYPES);
    if (result.added.length > 0) {
      logger.info('registered search attributes', { added: result.added });
      await waitUntilSearchAttributesUsable(client, config.temporal.namespace, result.added);
    }
  } catch (error) {
    logger.warn('could not check the custom search attributes; workflows fail until they exist', { error: (error as Error).message });
  }
}

/** The worker's port: the probes, and /metrics with the worker's own gauges set at scrape time. */
function listenWorkerMetrics(
  config: ServiceConfig, metrics: ServiceMetrics, answerHealth: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
  status: () => ReturnType<WorkerType['getStatus']> | undefined,
): Promise<ListeningServer> {
  return listen(createServer(async (req, res) => {
    if (await answerHealth(req, res)) return;
    if ((req.url ?? '').split('?')[0] === '/metrics') {
      await answerMetrics(req, res, {
        registry: metrics.registry,
        token: config.metrics?.token,
        beforeCollect: () => {
          const now = status();
          metrics.cachedWorkflows.set(now?.numCachedWorkflows ?? 0);
          metrics.workerPolling.set({ poller: 'workflow' }, now?.hasOutstandingWorkflowPoll ? 1 : 0);
          metrics.workerPolling.set({ poller: 'activity' }, now?.hasOutstandingActivityPoll ? 1 : 0);
        },
      });
    } else {
      res.statusCode = 404;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ error: { code: 'not_found', message: 'the worker serves only /metrics, /health/live and /health/ready' } }));
    }
  }), config.worker.metricsHost, config.worker.metricsPort, 'worker metrics');
}

/** Finished stations' containers whose removal did not get through at their end: removed as the worker stops. */
async function removeFinishedContainersAtStop(config: ServiceConfig, logger: Logger): Promise<void> {
  try {
    const removed = await removeFinishedOwnContainers(resolvePodmanAccount({ ...process.env, SERVICE_PODMAN_USER: config.container.podmanUser }));
    if (removed.length > 0) logger.info('removed finished task containers at stop', { containers: removed });
  } catch (error) {
    logger.warn('could not remove finished task containers at stop; the next worker on this host sweeps them', { error: (error as Error).message });
  }
}

export async function startWorker(config: ServiceConfig, logger: Logger, options: WorkerOptions = {}): Promise<RunningWorker> {
  // Imported lazily: loading the native worker costs time that commands like `service version` should not pay.
  const { DefaultLogger, NativeConnection, Runtime, Worker } = await import('@temporalio/worker');
  if (!runtimeInstalled) {
    // The SDK's own INFO lines (bundle statistics, state changes) drown the service's log; keep its warnings.
    Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(config.logLevel === 'debug' ? 'DEBUG' : 'WARN') });
    runtimeInstalled = true;
  }

  for (const warning of allowedActorsWarnings(process.env)) logger.warn(warning);
  config = withReachableWorkDir(config, logger);
  sweepWorkspacesInBackground(config.container.workDir, logger);
  const versioning = workerVersionFromEnv(process.env);
  if (!versioning.ok) throw new Error(versioning.problem);
  const deploymentOptions = workerDeploymentOptions(versioning.version);

  // Before the SDK starts its workflow threads, so that their heaps follow it too.
  const heapGrowth = limitHeapGrowth(config.worker.heapGrowingPercent);
  const metrics = createServiceMetrics({ defaultMetrics: true });
  const client = await Connection.connect({ ...temporalConnectionOptions(config.temporal), connectTimeout: 5_000 });
  await registerSearchAttributes(client, config, logger);
  await configurePoller(new Client({ connection: client, namespace: config.temporal.namespace }), config, logger);
  // Task containers of a worker that died (SIGKILL, crash) are removed before this one starts its own.
  sweepOrphansInBackground(() => resolvePodmanAccount({ ...process.env, SERVICE_PODMAN_USER: config.container.podmanUser }), logger.child({ component: 'containers' }));

  // LLM tracing (TRACING_*): loadServiceConfig already reported unknown attribute names and missing keys at startup.
  const tracing = startTracing(process.env, () => undefined);
  let connection: NativeConnectionType | undefined;
  let worker: WorkerType | undefined;
  let metricsServer: ListeningServer | undefined;
  const shutdown = workerShutdownTimes(config.shutdown.graceSeconds);
  let stopRequested = false;
  // Liveness and readiness on the metrics port (Kubernetes probes): readiness fails at once when a stop begins.
  const { activities, runsContainers } = createActivities(config, client, metrics, logger, options, tracing);
  // The fault campaign's light mode trades the container's isolation for speed: never in a deployment.
  if (runsContainers && process.env[PLAIN_PROCESS_AGENT_ENV] === '1') {
    logger.error(`${PLAIN_PROCESS_AGENT_ENV}=1: container stations run their agent as a plain process WITHOUT a container (the fault campaign's light mode); unset it anywhere but npm run chaos`);
  }
  const answerHealth = healthRequestHandler(workerReadiness({
    connection: client, config,
    state: () => worker?.getState() ?? 'INITIALIZED',
    stopRequested: () => stopRequested,
    ...(runsContainers ? { podmanAccount: () => resolvePodmanAccount({ ...process.env, SERVICE_PODMAN_USER: config.container.podmanUser }) } : {}),
  }));
  try {
    connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
    worker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      workflowsPath: require.resolve(deploymentOptions ? '../workflows/versioned' : '../workflows'),
      activities,
      sinks: workerSinks(metrics),
      // Counts ticket workflows that end failed (service_workflows_failed_total) without touching the workflow code.
      interceptors: { workflowModules: [require.resolve('../workflows/read-model/failure-metrics')] },
      // A station's heartbeat reaches the server at least every 2 s, and with its answer a cancellation (service:stop).
      maxHeartbeatThrottleInterval: '2 seconds',
      // SIGTERM: polling stops at once, running activities get the grace, then they are cancelled (containers removed).
      shutdownGraceTime: shutdown.shutdownGraceTime,
      shutdownForceTime: shutdown.shutdownForceTime,
      // Each cached workflow holds its state and sandbox in memory; the cache bounds RSS with many parked tickets, at
      // the price of a replay when an evicted one gets a task or a query (docs/benchmarks.md "Many parked tickets").
      maxCachedWorkflows: config.worker.maxCachedWorkflows,
      // A query of a ticket this worker evicted is still sent to its sticky queue first; with the SDK's 10 s it could
      // wait 5 s or more before the server gave it to the normal queue, where it is replayed (bench:parked: max
      // 5.2 s with 10 s, 0.37 s with 2 s, 1,500 tickets and a cache of 300).
      stickyQueueScheduleToStartTimeout: '2 seconds',
      ...(deploymentOptions ? { workerDeploymentOptions: deploymentOptions } : {}),
    });
    metricsServer = await listenWorkerMetrics(config, metrics, answerHealth, () => worker?.getStatus());
  } catch (error) {
    await tracing.shutdown().catch(() => undefined);
    await metricsServer?.close();
    await connection?.close().catch(() => undefined);
    await client.close().catch(() => undefined);
    throw error;
  }
  const running = worker;
  const done = running.run().finally(async () => {
    // Cancelled stations have answered; their containers may still be on their way out.
    if (!(await containerRunsSettled(shutdown.containerRemovalMs))) {
      logger.warn('task containers still being removed when the worker stopped; the next worker on this host sweeps them', { waited_ms: shutdown.containerRemovalMs });
    }
    // Finished stations' containers whose removal did not get through go now, not at the next start (issue 43).
    if (runsContainers && process.env[PLAIN_PROCESS_AGENT_ENV] !== '1') await removeFinishedContainersAtStop(config, logger);
    await tracing.shutdown().catch(() => undefined);
    await metricsServer?.close();
    await connection?.close().catch(() => undefined);
    await client.close().catch(() => undefined);
  });
  logger.info('worker polling', {
    task_queue: config.temporal.taskQueue, temporal: config.temporal.address, namespace: config.temporal.namespace, metrics: `${metricsServer.url}/metrics`,
    workflow_cache: config.worker.maxCachedWorkflows, heap_growth: heapGrowth ?? 'as NODE_OPTIONS or V8 set it',
    versioning: versioning.version ? `${versioning.version.deploymentName} build ${versioning.version.buildId} (ticket workflows pinned)` : 'off (patched() and replayed histories)',
  });
  return {
    metricsUrl: `${metricsServer.url}/metrics`,
    done,
    stop: async () => {
      stopRequested = true;
      if (running.getState() === 'RUNNING') {
        logger.info('worker stopping: polling stopped; running activities get the shutdown grace, then are cancelled', { grace_seconds: config.shutdown.graceSeconds });
        running.shutdown();
      }
      await done;
    },
  };
}
