import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Connection } from '@temporalio/client';
import type { DevServerPlan } from './dev-stack-config';
import { ensureSearchAttributes } from './search-attributes';

export class DevServerStartError extends Error {
  override readonly name = 'DevServerStartError';
}

export interface RunningDevServer {
  process: ChildProcess;
  address: string;
  namespace: string;
  stop(): Promise<void>;
}

/** Polls the frontend until it answers (or the process dies), so callers never race a half-started server. */
export async function waitForTemporal(address: string, options: { timeoutMs?: number; isDead?: () => string | undefined } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let lastError = 'no answer yet';
  while (Date.now() < deadline) {
    const dead = options.isDead?.();
    if (dead) throw new DevServerStartError(dead);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.withDeadline(Date.now() + 2_000, () => connection.workflowService.getSystemInfo({}));
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = (error as Error).message;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new DevServerStartError(`Temporal at ${address} did not become ready: ${lastError}`);
}

export async function startDevServer(
  cliPath: string,
  plan: DevServerPlan,
  options: { onOutput?: (chunk: string) => void; timeoutMs?: number; detached?: boolean } = {},
): Promise<RunningDevServer> {
  mkdirSync(plan.dataDir, { recursive: true });
  // Detached: a terminal's Ctrl-C goes to the whole process group, but the server must outlive the worker's drain.
  const child = spawn(cliPath, plan.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  let output = '';
  let exitedWith: string | undefined;
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-4_000);
    options.onOutput?.(text);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    exitedWith = `temporal server exited (${signal ?? code}) before it was ready: ${output.trim().split('\n').slice(-5).join(' | ')}`;
    resolve();
  }));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    await waitForTemporal(plan.address, { timeoutMs: options.timeoutMs, isDead: () => exitedWith });
    const connection = await Connection.connect({ address: plan.address });
    try {
      await ensureSearchAttributes(connection, plan.namespace, plan.searchAttributes);
    } finally {
      await connection.close();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { process: child, address: plan.address, namespace: plan.namespace, stop };
}
