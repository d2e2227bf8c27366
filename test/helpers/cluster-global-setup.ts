import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { ensureTemporalCli } from '../../src/temporal/temporal-cli-locator';

const root = join(__dirname, '..', '..');

/**
 * The Temporal server as a team runs it past one machine, for the cluster project: the real server binary on
 * PostgreSQL with several history shards (scripts/temporal-postgres-server.sh builds it once with Go, creates the
 * databases and the namespace). Its databases are named after this process, so two runs never share one, and are
 * dropped when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cliPath = await ensureTemporalCli({ report: (line) => console.log(line) });
  const runDir = mkdtempSync(join(tmpdir(), 'service-cluster-'));
  const addressFile = join(runDir, 'address');
  const server = spawn('bash', [join(root, 'scripts', 'temporal-postgres-server.sh'), '--address-file', addressFile, '--db', `service_cluster_${process.pid}`, '--recreate-db'], {
    cwd: root,
    env: { ...process.env, TEMPORAL_CLI_PATH: cliPath },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | string>((resolve) => server.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  // The first run builds the server with Go (minutes); later runs start it in seconds.
  const deadline = Date.now() + 30 * 60_000;
  let exitCode: number | string | undefined;
  void exited.then((code) => { exitCode = code; });
  while (!existsSync(addressFile)) {
    if (exitCode !== undefined) throw new Error(`scripts/temporal-postgres-server.sh exited (${exitCode}) before the server was ready; its log is above`);
    if (Date.now() > deadline) {
      server.kill('SIGTERM');
      throw new Error('the Temporal server on PostgreSQL was not ready within 30 minutes');
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  project.provide('temporalAddress', readFileSync(addressFile, 'utf8').trim());
  project.provide('temporalCliPath', cliPath);
  return async () => {
    if (exitCode === undefined) {
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(runDir, { recursive: true, force: true });
  };
}
