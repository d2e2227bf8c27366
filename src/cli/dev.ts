import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, Flags } from '@oclif/core';
import { reportConfigurationError, startupConfig } from '../config/startup-config';
import { loadRepositoryRegistry } from '../config/repository-registry';
import { requireWebhookSecrets } from '../config/webhook-secrets';
import { DEV_WEBHOOK_SECRETS_FILE, fillDevWebhookSecrets } from '../config/dev-webhook-secrets';
import { startGateway, type RunningGateway } from '../gateway/server';
import { startDevServer, type RunningDevServer } from '../temporal/dev-server';
import { DevStackConfigError, loadDevStackConfig, planDevServer, resolveStackFile } from '../temporal/dev-stack-config';
import { ensureTemporalCli, projectRoot } from '../temporal/temporal-cli-locator';
import { startSandbox, type Sandbox } from '../sandbox/sandbox-stack';
import { startWorker, type RunningWorker } from '../worker';
import { runUntilSignal } from '../process/run-until-signal';
import { removeRunningDev, writeRunningDev } from '../temporal/running-dev';
import { registerRunningStack, runningStacksFile, unregisterRunningStack } from '../temporal/running-stacks';

/**
 * Seconds since the start: since `npm run dev` when scripts/dev.sh passed its start time (so the build check and
 * the npm start-up count), since this process started otherwise.
 */
function secondsToReady(env: NodeJS.ProcessEnv): string {
  const given = Number(env.SERVICE_DEV_STARTED_AT);
  const since = Number.isFinite(given) && given > 0 ? given : performance.timeOrigin;
  return ((Date.now() - since) / 1000).toFixed(1);
}

/** The variables the port flags set; a flag wins over the variable of the caller's environment. */
function portOverrides(flags: { 'gateway-port'?: number; 'metrics-port'?: number; 'gateway-metrics-port'?: number }): Record<string, string> {
  return {
    ...(flags['gateway-port'] ? { SERVICE_GATEWAY_PORT: String(flags['gateway-port']) } : {}),
    ...(flags['metrics-port'] ? { SERVICE_WORKER_METRICS_PORT: String(flags['metrics-port']) } : {}),
    ...(flags['gateway-metrics-port'] ? { SERVICE_GATEWAY_METRICS_PORT: String(flags['gateway-metrics-port']) } : {}),
  };
}

/** Where the gateway's /metrics is: on its own port when SERVICE_GATEWAY_METRICS_PORT (or the flag) set one. */
function gatewayMetricsUrl(gatewayUrl: string, config: ReturnType<typeof startupConfig>['config']): string {
  const apart = config.gateway.metrics;
  if (!apart) return `${gatewayUrl}/metrics`;
  const host = ['0.0.0.0', '::', ''].includes(apart.host) ? '127.0.0.1' : apart.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${apart.port}/metrics`;
}

export default class DevCommand extends Command {
  static override description = [
    'Run the whole stack locally: the Temporal dev server from temporal-dev.yaml (SQLite file under the data folder,',
    'frontend and UI on the ports of the stack file or --temporal-port/--ui-port), then the worker and the gateway.',
    'With --sandbox also the tracker, source-host and model simulators, whose state is kept in <data folder>/sandbox.',
    'The gateway listens on --gateway-port (8000), the worker\'s metrics on --metrics-port (8001). Operator commands',
    '(get-config, definitions, migrate, smoke-test, sandbox) find this stack wherever they run; with two stacks running',
    'they ask for --data-dir. Ctrl-C stops all of it.',
  ].join(' ');

  static override flags = {
    config: Flags.string({ description: 'dev stack file', default: 'temporal-dev.yaml' }),
    'data-dir': Flags.string({ description: 'folder for the SQLite file (overrides server.data_dir)' }),
    'temporal-port': Flags.integer({ description: 'Temporal frontend port (overrides server.port)', min: 1, max: 65535 }),
    'ui-port': Flags.integer({ description: 'Temporal UI port (overrides server.ui_port)', min: 1, max: 65535 }),
    'gateway-port': Flags.integer({ description: 'the gateway\'s port: API, webhooks and its /metrics (overrides SERVICE_GATEWAY_PORT; default 8000)', min: 1, max: 65535 }),
    'metrics-port': Flags.integer({ description: 'the worker\'s metrics and health port (overrides SERVICE_WORKER_METRICS_PORT; default 8001)', min: 1, max: 65535 }),
    'gateway-metrics-port': Flags.integer({ description: 'serve the gateway\'s /metrics and its health probes on this port apart from the API (overrides SERVICE_GATEWAY_METRICS_PORT)', min: 1, max: 65535 }),
    headless: Flags.boolean({ description: 'do not start the Temporal UI', default: false }),
    sandbox: Flags.boolean({ description: 'run against local simulators of the tracker, the source host and (unless MODEL_*/LLM_* are set) the model; no real accounts needed', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DevCommand);
    let server: RunningDevServer | undefined;
    let worker: RunningWorker | undefined;
    let gateway: RunningGateway | undefined;
    let sandbox: Sandbox | undefined;
    let stopping: Promise<void> | undefined;
    // Once only, whoever asks first (a signal, the worker ending, an error); order matters: the worker drains against
    // a live server, then the server goes.
    let runningDevDir: string | undefined;
    const stacksFile = runningStacksFile(process.env);
    const stopAll = () => (stopping ??= (async () => {
      if (runningDevDir) {
        unregisterRunningStack(stacksFile, resolve(runningDevDir));
        removeRunningDev(runningDevDir);
      }
      await gateway?.stop().catch((e: Error) => this.logToStderr(`gateway: ${e.message}`));
      await worker?.stop().catch((e: Error) => this.logToStderr(`worker: ${e.message}`));
      await server?.stop();
      await sandbox?.close().catch((e: Error) => this.logToStderr(`sandbox: ${e.message}`));
    })());
    const killServerOnExit = () => server?.process.kill('SIGKILL');
    try {
      const root = projectRoot();
      const stack = loadDevStackConfig(resolveStackFile(flags.config, root));
      const plan = planDevServer(stack, root, {
        dataDir: flags['data-dir'], port: flags['temporal-port'], uiPort: flags['ui-port'], headless: flags.headless,
      });
      if (flags.sandbox) {
        sandbox = await startSandbox({
          stateDir: join(plan.dataDir, 'sandbox'),
          serviceStateExists: existsSync(plan.dbPath),
          env: process.env,
          report: (line) => this.log(line),
        });
      }
      // The console links a ticket's workflow in this stack's Temporal UI unless TEMPORAL_UI_URL says otherwise.
      const env: NodeJS.ProcessEnv = { ...process.env, ...sandbox?.env, ...portOverrides(flags), TEMPORAL_ADDRESS: plan.address, TEMPORAL_NAMESPACE: plan.namespace, TEMPORAL_UI_URL: process.env.TEMPORAL_UI_URL ?? plan.uiUrl };
      // Without --sandbox and without secrets of the user's, the webhook secrets are made up and kept (see the module).
      const madeUpSecrets = sandbox ? [] : fillDevWebhookSecrets(plan.dataDir, env);
      // The worker and gateway read a few settings straight from the process environment (the registry file path).
      Object.assign(process.env, sandbox?.env ?? {}, portOverrides(flags));
      const { config, logger, models } = startupConfig(env);
      // The gateway would refuse this too, but only after Temporal and the worker had started.
      requireWebhookSecrets(config, loadRepositoryRegistry(env), env);

      const cli = await ensureTemporalCli({ report: (line) => this.log(line) });
      this.log(`starting Temporal dev server (${cli}) with ${plan.dbPath}...`);
      process.once('exit', killServerOnExit);
      server = await startDevServer(cli, plan, { detached: true });
      worker = await startWorker(config, logger, { models });
      gateway = await startGateway(config, logger);
      sandbox?.connect(gateway.url);
      // Operator commands of this checkout find this stack through it (src/temporal/running-dev.ts).
      writeRunningDev(plan.dataDir, {
        TEMPORAL_ADDRESS: plan.address, TEMPORAL_NAMESPACE: plan.namespace, SERVICE_TASK_QUEUE: config.temporal.taskQueue, TEMPORAL_CLI_PATH: cli,
        ...sandbox?.env,
      }, gateway.url);
      runningDevDir = plan.dataDir;
      // Operator commands anywhere find it through the per-user list (src/temporal/running-stacks.ts).
      registerRunningStack(stacksFile, {
        pid: process.pid, started_at: new Date().toISOString(), data_dir: resolve(plan.dataDir), temporal_address: plan.address,
        namespace: plan.namespace, gateway_url: gateway.url, sandbox: sandbox !== undefined,
      });

      this.log([
        '',
        `service dev is running (ready in ${secondsToReady(process.env)} s):`,
        `  API          ${gateway.url}/api/v1   (health: ${gateway.url}/api/v1/health)`,
        `  Webhooks     ${gateway.url}/api/v1/webhooks/tracker`,
        ...(config.console.enabled ? [`  Console      ${gateway.url}/console/   (sign in with SERVICE_OPERATOR_TOKEN)`] : []),
        `  Temporal UI  ${plan.uiUrl ?? '(headless)'}`,
        `  Temporal     ${plan.address}  namespace ${plan.namespace}  task queue ${config.temporal.taskQueue}`,
        `  Metrics      ${gatewayMetricsUrl(gateway.url, config)} (gateway)  ${worker.metricsUrl} (worker)`,
        `  Data         ${plan.dbPath}`,
        ...(madeUpSecrets.length > 0 ? [`  Webhooks are signed with secrets made up for this data folder (${join(plan.dataDir, DEV_WEBHOOK_SECRETS_FILE)}); give them to the tracker's and source host's webhook settings:`, ...madeUpSecrets.map((name) => `               ${name}=${env[name]}`)] : []),
        ...(sandbox?.describe() ?? []),
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'));
      await Promise.race([runUntilSignal(stopAll, (line) => this.log(line)), worker.done]);
      await stopAll();
      process.off('exit', killServerOnExit);
      this.log('stopped');
    } catch (error) {
      await stopAll().catch(() => undefined);
      const code = reportConfigurationError(error);
      if (code !== undefined) this.exit(code);
      if (error instanceof DevStackConfigError) this.error(error.message, { exit: 1 });
      throw error;
    }
  }
}
