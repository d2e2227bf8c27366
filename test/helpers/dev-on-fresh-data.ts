import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { startService, type ServiceProcess } from './service-process';

export interface DevOnFreshData {
  dev: ServiceProcess;
  dataDir: string;
  ports: { temporal: number; ui: number; gateway: number; metrics: number };
  /**
   * The list of running stacks this dev is in (SERVICE_STACKS_FILE), its own: operator commands given it find this
   * stack as a person's would find theirs, without --data-dir and whatever else runs on the machine.
   */
  stacksFile: string;
}

/**
 * `service <args>` (a `dev` command line) on a data directory and loopback ports of its own, headless, with its
 * workspaces next to that data rather than in the checkout's `.data/`; resolves once it says it is ready.
 */
export async function startDevOnFreshData(name: string, args: string[], temporalCliPath: string): Promise<DevOnFreshData> {
  const dataDir = mkdtempSync(join(tmpdir(), `service-${name}-`));
  // The container account runs the stations' containers on workspaces below it: it must pass through.
  chmodSync(dataDir, 0o711);
  const ports = { temporal: await freePort(), ui: await freePort(), gateway: await freePort(), metrics: await freePort() };
  const stacksFile = join(dataDir, 'stacks.json');
  const dev = startService([
    ...args, '--headless', '--data-dir', dataDir, '--temporal-port', String(ports.temporal),
    '--gateway-port', String(ports.gateway), '--metrics-port', String(ports.metrics),
  ], {
    TEMPORAL_CLI_PATH: temporalCliPath,
    SERVICE_TASK_QUEUE: `it-${name}`,
    SERVICE_GATEWAY_HOST: '127.0.0.1',
    SERVICE_WORKER_METRICS_HOST: '127.0.0.1',
    SERVICE_STACKS_FILE: stacksFile,
    CONTAINER_WORK_DIR: join(dataDir, 'workspaces'),
  });
  try {
    await dev.waitForOutput(/Press Ctrl-C to stop/, 180_000);
  } catch (error) {
    await dev.stop('SIGINT');
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return { dev, dataDir, ports, stacksFile };
}
