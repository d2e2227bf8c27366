import { randomUUID } from 'node:crypto';
import { freePort } from './free-port';
import { startService, type ServiceProcess } from './service-process';

export interface ServiceStack {
  api: string;
  workerMetricsUrl: string;
  env: NodeJS.ProcessEnv;
  worker: ServiceProcess;
  gateway: ServiceProcess;
  restartWorker(): Promise<void>;
  /** Stops both processes; resolves with their exit codes ([gateway, worker]). */
  stop(): Promise<Array<number | string>>;
}

/**
 * The gateway refuses to start while a webhook secret is unset (unless SERVICE_ALLOW_UNSIGNED_WEBHOOKS=true). A test
 * that sets no secret for a source does not send that source's webhooks: its route is locked with a secret nobody
 * knows, as a production gateway with a source it does not use would be. A test that means unsigned webhooks says so
 * with the opt-in.
 */
function unusedWebhookSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.SERVICE_ALLOW_UNSIGNED_WEBHOOKS !== undefined) return {};
  return { TRACKER_WEBHOOK_SECRET: `unused-${randomUUID()}`, SCMHOST_WEBHOOK_SECRET: `unused-${randomUUID()}` };
}

/** The real `service worker` and `service gateway` processes against a Temporal server, on free loopback ports. */
export async function startServiceStack(temporalAddress: string, env: NodeJS.ProcessEnv, options: { workerScript?: string } = {}): Promise<ServiceStack> {
  const gatewayPort = await freePort();
  const metricsPort = await freePort();
  const fullEnv: NodeJS.ProcessEnv = {
    TEMPORAL_ADDRESS: temporalAddress,
    SERVICE_GATEWAY_HOST: '127.0.0.1',
    SERVICE_GATEWAY_PORT: String(gatewayPort),
    SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
    SERVICE_WORKER_METRICS_PORT: String(metricsPort),
    // A test stops its stack with stations possibly still running: a short grace keeps teardown quick (the
    // shutdown test sets its own).
    SERVICE_SHUTDOWN_GRACE_SECONDS: '5',
    ...unusedWebhookSecrets(env),
    ...env,
  };
  const startWorker = async () => {
    const worker = options.workerScript ? startService([], fullEnv, options.workerScript) : startService(['worker'], fullEnv);
    await worker.waitForOutput(/worker polling task queue/);
    return worker;
  };
  const startGateway = async () => {
    const gateway = startService(['gateway'], fullEnv);
    await gateway.waitForOutput(/gateway listening on/);
    return gateway;
  };
  const [worker, gateway] = await Promise.all([startWorker(), startGateway()]);
  const stack: ServiceStack = {
    api: `http://127.0.0.1:${gatewayPort}`,
    workerMetricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    env: fullEnv,
    worker,
    gateway,
    restartWorker: async () => {
      await stack.worker.stop();
      stack.worker = await startWorker();
    },
    stop: () => Promise.all([stack.gateway.stop(), stack.worker.stop()]),
  };
  return stack;
}
