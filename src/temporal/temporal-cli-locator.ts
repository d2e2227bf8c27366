import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/**
 * The Temporal CLI is found, in order, at TEMPORAL_CLI_PATH, on PATH, or in the project-local tool folder; when it is
 * nowhere it is built once from source with Go (our machines have the Go module proxy but no other internet, so a
 * download of the prebuilt binary is not an option). Later runs reuse the built binary.
 */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export class TemporalCliUnavailableError extends Error {
  override readonly name = 'TemporalCliUnavailableError';
}

export interface LocateOptions {
  env?: NodeJS.ProcessEnv;
  /** Project-local tool folder; the binary lives in `<toolDir>/bin/temporal`. */
  toolDir?: string;
  report?: (line: string) => void;
}

export function projectRoot(): string {
  // dist/src/temporal or src/temporal: the project root is where package.json is, two or three levels up.
  for (const candidate of [resolve(__dirname, '..', '..'), resolve(__dirname, '..', '..', '..')]) {
    if (existsSync(join(candidate, 'package.json')) && existsSync(join(candidate, 'temporal-dev.yaml'))) return candidate;
  }
  return resolve(__dirname, '..', '..');
}

export function defaultToolDir(): string {
  return join(projectRoot(), '.tools');
}

function findOnPath(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'temporal');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function findGo(env: NodeJS.ProcessEnv): string | undefined {
  const onPath = (env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'go')).find((p) => existsSync(p));
  if (onPath) return onPath;
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined;
}

/** Finds the binary without building it. */
export function findTemporalCli(options: LocateOptions = {}): string | undefined {
  const env = options.env ?? process.env;
  const explicit = env.TEMPORAL_CLI_PATH?.trim();
  if (explicit) {
    if (!existsSync(explicit)) throw new TemporalCliUnavailableError(`TEMPORAL_CLI_PATH points at ${explicit}, which does not exist`);
    return explicit;
  }
  const local = join(options.toolDir ?? defaultToolDir(), 'bin', 'temporal');
  if (existsSync(local)) return local;
  return findOnPath(env);
}

export async function ensureTemporalCli(options: LocateOptions = {}): Promise<string> {
  const found = findTemporalCli(options);
  if (found) return found;
  const env = options.env ?? process.env;
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  const go = findGo(env);
  if (!go) {
    throw new TemporalCliUnavailableError(
      'No Temporal CLI found (TEMPORAL_CLI_PATH, PATH, .tools/bin) and no Go toolchain to build it: install Go or set TEMPORAL_CLI_PATH',
    );
  }
  const binDir = join(options.toolDir ?? defaultToolDir(), 'bin');
  mkdirSync(binDir, { recursive: true });
  report(`Building the Temporal CLI once with ${go} install ${TEMPORAL_CLI_MODULE} into ${binDir}: 5 to 15 minutes on a busy machine (a temporal binary on PATH, or TEMPORAL_CLI_PATH, skips this)...`);
  await new Promise<void>((resolvePromise, reject) => {
    execFile(go, ['install', TEMPORAL_CLI_MODULE], { env: { ...env, GOBIN: binDir }, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) reject(new TemporalCliUnavailableError(`Building the Temporal CLI failed: ${stderr.trim().split('\n').slice(-5).join(' | ') || error.message}`));
      else resolvePromise();
    });
  });
  const built = join(binDir, 'temporal');
  if (!existsSync(built)) throw new TemporalCliUnavailableError(`go install finished but ${built} is missing`);
  report(`Temporal CLI ready at ${built}`);
  return built;
}
