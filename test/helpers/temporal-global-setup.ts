import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { startDevServer } from '../../src/temporal/dev-server';
import { parseDevStackConfig, planDevServer } from '../../src/temporal/dev-stack-config';
import { freePort } from './free-port';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalCliPath: string;
  }
}

const root = join(__dirname, '..', '..');

/**
 * The Temporal CLI, found or built (scripts/install-temporal-cli.sh): `npm test` does not wait for it before the
 * earlier lanes, so .ci/run's background build may still be under way; the script waits for that build rather than
 * starting a second one. Its progress lines go to this run's output.
 */
function installedTemporalCli(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(join(root, 'scripts', 'install-temporal-cli.sh'), { cwd: root, maxBuffer: 1024 * 1024 }, (error, stdout) => {
      if (error) reject(new Error(`the Temporal CLI could not be found or built: ${error.message}`));
      else resolve(stdout.trim());
    });
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  });
}

/**
 * One real Temporal dev server (the CLI binary, never a download) for the whole integration run, on a free port with
 * its own SQLite file, configured from the same temporal-dev.yaml as `service dev`. Test files keep apart by task
 * queue and ticket keys of their own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cliPath = await installedTemporalCli();
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
