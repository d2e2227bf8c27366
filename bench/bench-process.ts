/**
 * What the benches that run the service as processes share: their command-line options, and starting `service
 * <command>` from this checkout's build and waiting for the line that says it is ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** The value after `--name` on the command line; undefined when it is not given. */
export function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** `--name` as a number (fractions allowed) of at least `min`; `fallback` when it is not given. */
export function numberOption(name: string, fallback: number, min = 1): number {
  const raw = option(name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number of at least ${min}`);
  return value;
}

/** `--name` as a whole number of at least `min`; `fallback` when it is not given. */
export function wholeNumberOption(name: string, fallback: number, min = 0): number {
  const raw = option(name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be a whole number of at least ${min}`);
  return value;
}

/**
 * Starts `service <command>` (bin/run.js under `root`) with only PATH, HOME and `env`, and resolves once its output
 * matches `ready`; rejects with the output's tail when it exits before that.
 */
export function startServiceProcess(root: string, command: string, env: NodeJS.ProcessEnv, ready: RegExp, nodeOptions: string[] = []): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeOptions, join(root, 'bin', 'run.js'), command], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolveChild, reject) => {
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
      if (ready.test(output)) resolveChild(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`service ${command} exited (${code}): ${output}`)));
  });
}
