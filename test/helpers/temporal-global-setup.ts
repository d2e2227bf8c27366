import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { startDevServer } from '../../src/temporal/dev-server';
import { parseDevStackConfig, planDevServer } from '../../src/temporal/dev-stack-config';
import { ensureTemporalCli } from '../../src/temporal/temporal-cli-locator';
import { freePort } from './free-port';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalCliPath: string;
  }
}

const root = join(__dirname, '..', '..');

/**
 * One real Temporal dev server (the CLI binary, never a download) for the whole integration run, on a free port with
 * its own SQLite file, configured from the same temporal-dev.yaml as `service dev`. Test files keep apart by task
 * queue and ticket keys of their own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cliPath = await ensureTemporalCli({ report: (line) => console.log(line) });
  const dataDir = mkdtempSync(join(tmpdir(), 'service-it-'));
  const stack = parseDevStackConfig(readFileSync(join(root, 'temporal-dev.yaml'), 'utf8'));
  const plan = planDevServer(stack, root, { dataDir, port: await freePort(), headless: true });
  const server = await startDevServer(cliPath, plan, { timeoutMs: 90_000 });
  project.provide('temporalAddress', server.address);
  project.provide('temporalCliPath', cliPath);
  return async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
