import { resolve } from 'node:path';
import { processAlive } from '../process/process-alive';
import { readRunningStacks, runningStacksFile, type RunningStack } from './running-stacks';
import { defaultDevDataDir, findRunningDev, type RunningDev } from './running-dev';

/**
 * Which running `service dev` stack an operator command talks to (issue 43, point 6). The one module that decides it:
 * `get-config`, `definitions ...`, `migrate`, `smoke-test` and the `service sandbox ...` commands all ask here.
 *
 * - `--data-dir DIR` wins: the stack of that folder (nothing taken when it does not run there).
 * - Otherwise TEMPORAL_ADDRESS in the caller's environment wins for the commands that talk to Temporal: no stack is
 *   consulted, the environment is used as it stands.
 * - Otherwise the running stacks of this user (src/temporal/running-stacks.ts), the dead ones left out: none, the
 *   command goes on as before (the checkout's default data folder); one, that one; more, the command refuses and
 *   lists them, since guessing would act on the wrong tickets.
 */
export type StackChoice =
  | { kind: 'data-dir'; dataDir: string }
  | { kind: 'environment'; address: string }
  | { kind: 'stack'; stack: RunningStack }
  | { kind: 'none' }
  | { kind: 'ambiguous'; stacks: RunningStack[] };

export interface StackQuestion {
  /** `--data-dir` as the caller gave it. */
  dataDir?: string;
  /** TEMPORAL_ADDRESS as the caller set it (only for commands that talk to Temporal). */
  explicitAddress?: string;
  /** The registry's entries, alive or not. */
  stacks: readonly RunningStack[];
  isAlive: (pid: number) => boolean;
  /** Only stacks started with --sandbox count (the `service sandbox ...` commands). */
  sandboxOnly?: boolean;
}

export function chooseStack(question: StackQuestion): StackChoice {
  if (question.dataDir?.trim()) return { kind: 'data-dir', dataDir: question.dataDir };
  if (question.explicitAddress?.trim()) return { kind: 'environment', address: question.explicitAddress.trim() };
  const live = question.stacks.filter((s) => question.isAlive(s.pid) && (!question.sandboxOnly || s.sandbox));
  if (live.length === 0) return { kind: 'none' };
  if (live.length === 1) return { kind: 'stack', stack: live[0]! };
  return { kind: 'ambiguous', stacks: live };
}

const portOf = (url: string) => {
  try {
    return new URL(url).port || '80';
  } catch {
    return url;
  }
};

/** "the stack of /path/.data (Temporal 127.0.0.1:7233, gateway :8000)" */
export function describeStack(stack: Pick<RunningStack, 'data_dir' | 'temporal_address' | 'gateway_url'>): string {
  return `the stack of ${stack.data_dir} (Temporal ${stack.temporal_address}, gateway :${portOf(stack.gateway_url)})`;
}

/** What a command says when more than one stack runs and it was not told which. */
export function ambiguityMessage(stacks: readonly RunningStack[], sandboxOnly = false): string {
  return [
    `${stacks.length} ${sandboxOnly ? 'sandbox ' : ''}stacks of service dev are running; say which with --data-dir:`,
    ...stacks.map((s) => `  --data-dir ${s.data_dir}   ${describeStack(s)}, pid ${s.pid}`),
  ].join('\n');
}

/** More than one stack runs and the command was not told which: exit 1 with the message. */
export class AmbiguousStackError extends Error {
  override readonly name = 'AmbiguousStackError';
}

export interface ChosenStack {
  /** The data folder to act in (the sandbox commands' state); undefined: the checkout's default. */
  dataDir?: string;
  /** The one line for stderr saying which stack (or environment) the command talks to; undefined when none. */
  line?: string;
}

const unset = (env: NodeJS.ProcessEnv, name: string) => (env[name] ?? '').trim() === '';

function adopt(env: NodeJS.ProcessEnv, variables: Record<string, string>): void {
  for (const [name, value] of Object.entries(variables)) {
    if (unset(env, name) && typeof value === 'string' && value !== '') env[name] = value;
  }
}

function describeRunningDev(running: RunningDev, dataDir: string): string {
  return describeStack({ data_dir: resolve(dataDir), temporal_address: running.env.TEMPORAL_ADDRESS ?? '?', gateway_url: running.gateway_url ?? '?' });
}

/**
 * Finds the stack the command talks to and fills the caller's unset variables from it (its service-dev.json); a
 * variable the caller set always wins. Throws AmbiguousStackError when two or more run and none was named.
 */
export function useRunningStack(env: NodeJS.ProcessEnv, options: { dataDir?: string; sandboxOnly?: boolean } = {}): ChosenStack {
  const choice = chooseStack({
    dataDir: options.dataDir,
    explicitAddress: options.sandboxOnly ? undefined : env.TEMPORAL_ADDRESS,
    stacks: readRunningStacks(runningStacksFile(env)),
    isAlive: processAlive,
    sandboxOnly: options.sandboxOnly,
  });
  switch (choice.kind) {
    case 'ambiguous':
      throw new AmbiguousStackError(ambiguityMessage(choice.stacks, options.sandboxOnly));
    case 'environment':
      return { line: `using Temporal ${choice.address} from TEMPORAL_ADDRESS (no running stack consulted)` };
    case 'none':
      return {};
    case 'data-dir': {
      const dataDir = defaultDevDataDir(choice.dataDir) ?? choice.dataDir;
      const running = findRunningDev(dataDir);
      // Said, so that a mistyped folder is not mistaken for a stack that does not answer.
      if (!running) return { dataDir, line: `no service dev runs with the data folder ${resolve(dataDir)}: going on with this environment's settings` };
      adopt(env, running.env);
      return { dataDir, line: `using ${describeRunningDev(running, dataDir)}` };
    }
    case 'stack': {
      // The registry's addresses when its service-dev.json cannot be read (then the sandbox variables are missing).
      adopt(env, { ...findRunningDev(choice.stack.data_dir)?.env, TEMPORAL_ADDRESS: choice.stack.temporal_address, TEMPORAL_NAMESPACE: choice.stack.namespace });
      return { dataDir: choice.stack.data_dir, line: `using ${describeStack(choice.stack)}` };
    }
  }
}

/**
 * For the operator commands: chooses the stack, fills the environment, writes the line saying which on stderr.
 * False (the message written) when two or more run and none was named: the command exits 1.
 */
export function announceRunningStack(env: NodeJS.ProcessEnv, dataDir: string | undefined): boolean {
  try {
    const chosen = useRunningStack(env, { dataDir });
    if (chosen.line) process.stderr.write(`${chosen.line}\n`);
    return true;
  } catch (error) {
    if (!(error instanceof AmbiguousStackError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return false;
  }
}
