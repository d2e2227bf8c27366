import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDevStackConfig, planDevServer, resolveStackFile } from './dev-stack-config';
import { projectRoot } from './temporal-cli-locator';
import { processAlive } from '../process/process-alive';

/**
 * Operator commands started beside a running `service dev` (issue 30, point 5): `service dev` leaves a file in its
 * data folder that says where its Temporal server is, which CLI it runs, and, with `--sandbox`, the variables that
 * point the service at the simulators (the model configuration among them). An operator command fills the variables
 * the caller did not set from the file of the stack src/temporal/which-stack.ts chose, so `service get-config SBX
 * --models` or `service definitions list` just work; a variable set by the caller always wins. The file goes when
 * `service dev` stops; a file whose process is gone is ignored.
 */
export const RUNNING_DEV_FILE = 'service-dev.json';

export interface RunningDev {
  pid: number;
  started_at: string;
  data_dir: string;
  /** TEMPORAL_*, SERVICE_TASK_QUEUE, and with --sandbox the simulators' variables (their secrets are in sandbox.json already). */
  env: Record<string, string>;
  /** The gateway's base URL (files written before issue 43 have none). */
  gateway_url?: string;
}

export function writeRunningDev(dataDir: string, env: Record<string, string>, gatewayUrl?: string): string {
  const path = join(dataDir, RUNNING_DEV_FILE);
  const running: RunningDev = { pid: process.pid, started_at: new Date().toISOString(), data_dir: dataDir, env, ...(gatewayUrl ? { gateway_url: gatewayUrl } : {}) };
  writeFileSync(path, `${JSON.stringify(running, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

export function removeRunningDev(dataDir: string): void {
  const path = join(dataDir, RUNNING_DEV_FILE);
  const running = readRunningDev(path);
  if (!running || running.pid === process.pid) rmSync(path, { force: true });
}

function readRunningDev(path: string): RunningDev | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as RunningDev;
    return typeof parsed.pid === 'number' && parsed.env && typeof parsed.env === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}


/** The data folder `service dev` uses by default in this checkout (temporal-dev.yaml's, or `dataDir` when given). */
export function defaultDevDataDir(dataDir?: string): string | undefined {
  try {
    const root = projectRoot();
    return planDevServer(loadDevStackConfig(resolveStackFile('temporal-dev.yaml', root)), root, { dataDir }).dataDir;
  } catch {
    return undefined;
  }
}

/** The running `service dev` of a data folder, if its process is still there. */
export function findRunningDev(dataDir: string | undefined): RunningDev | undefined {
  if (!dataDir) return undefined;
  const running = readRunningDev(join(dataDir, RUNNING_DEV_FILE));
  return running && processAlive(running.pid) ? running : undefined;
}

/** What an operator command's --help says about where it finds the service (oclif `static description` suffix). */
export const OPERATOR_ENVIRONMENT_HELP = [
  'It reads the same environment as the worker: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and SERVICE_TASK_QUEUE (Temporal),',
  'TEMPORAL_CLI_PATH (the CLI), MODEL_CONNECTIONS/MODEL_DEFAULT/MODEL_POLICY or LLM_BACKEND/LLM_MODEL (models), and',
  'TRACKER_BASE_URL/TRACKER_USER_EMAIL/TRACKER_API_TOKEN (project settings). With a `service dev` running (anywhere, any',
  'data folder) it takes what is unset from that stack and says which on stderr; with two or more running, name one with',
  '--data-dir. TEMPORAL_ADDRESS set in the environment, or --data-dir, wins.',
].join(' ');
