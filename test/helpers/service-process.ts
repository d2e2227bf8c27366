import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/temporal/temporal-cli-locator';

// test/helpers, or dist-bench/test/helpers when a benchmark runs the same helpers.
const root = projectRoot();
export const SERVICE_BIN = join(root, 'bin', 'run.js');

export interface ServiceProcess {
  process: ChildProcess;
  /** stdout and stderr interleaved. */
  output(): string;
  /** stdout alone (for commands whose stdout is a machine-readable answer). */
  stdout(): string;
  /** stderr alone. */
  stderr(): string;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends the signal and resolves with the exit code (or the signal name) once the process is gone. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | string>;
  exited: Promise<number | string>;
}

/**
 * Runs the real `service` binary (built into dist/ by `npm test`) as a child process; `script` runs another Node
 * program the same way (a test worker built from the compiled service).
 */
export function startService(args: string[], env: NodeJS.ProcessEnv, script = SERVICE_BIN): ServiceProcess {
  if (!existsSync(join(root, 'dist', 'src', 'cli'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it) before the integration tests');
  }
  const child = spawn(process.execPath, [script, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    collect(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    collect(chunk);
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
      for (const listener of listeners) listener();
    });
  });

  const waitForOutput = (pattern: RegExp, timeoutMs = 60_000) => new Promise<RegExpMatchArray>((resolve, reject) => {
    const check = () => {
      const match = output.match(pattern);
      if (match) {
        cleanup();
        resolve(match);
      } else if (child.exitCode !== null || child.signalCode !== null) {
        cleanup();
        reject(new Error(`service ${args.join(' ')} exited before printing ${pattern}:\n${output}`));
      }
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`service ${args.join(' ')} did not print ${pattern} within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      listeners.delete(check);
    };
    listeners.add(check);
    check();
  });

  const stop = async (signal: NodeJS.Signals = 'SIGINT', timeoutMs = 30_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    }
    return exited;
  };

  return { process: child, output: () => output, stdout: () => stdout, stderr: () => stderr, waitForOutput, stop, exited };
}

/** A `service ...` command run to its end: its exit code (or the signal that ended it) and its output. */
export interface FinishedCommand {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Runs `service <args>` as a person does beside a stack and waits for it to end; killed after `timeoutMs`. */
export async function runServiceCommand(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<FinishedCommand> {
  const command = startService(args, env);
  const timer = setTimeout(() => command.process.kill('SIGKILL'), timeoutMs);
  const code = await command.exited;
  clearTimeout(timer);
  return { code, stdout: command.stdout(), stderr: command.stderr() };
}
