import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { processAlive } from '../process/process-alive';

/**
 * The per-user list of running `service dev` stacks (issue 43, point 6): each `service dev` adds itself when it is
 * ready and removes itself when it stops, so an operator command run anywhere (another checkout, another folder, a
 * stack started with `--data-dir`) finds the stack it should talk to. An entry whose process is gone (a SIGKILL, a
 * reboot) is ignored by readers and dropped by the next write. What the stack's processes need beyond the addresses
 * (the model and sandbox variables, some of them secrets) stays in its data folder's service-dev.json (mode 0600).
 */
export interface RunningStack {
  pid: number;
  started_at: string;
  /** Absolute. */
  data_dir: string;
  temporal_address: string;
  namespace: string;
  /** The gateway's base URL, e.g. http://127.0.0.1:8000. */
  gateway_url: string;
  /** Started with --sandbox: the `service sandbox ...` commands can act in it. */
  sandbox: boolean;
}

/** Where the list is: SERVICE_STACKS_FILE, else $XDG_RUNTIME_DIR/service/stacks.json, else ~/.local/state/service/stacks.json. */
export function runningStacksFile(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.SERVICE_STACKS_FILE?.trim();
  if (given) return given;
  const runtime = env.XDG_RUNTIME_DIR?.trim();
  if (runtime) return join(runtime, 'service', 'stacks.json');
  return join(env.HOME?.trim() || homedir(), '.local', 'state', 'service', 'stacks.json');
}

const isStack = (value: unknown): value is RunningStack => {
  const s = value as Partial<RunningStack> | null;
  return !!s && typeof s.pid === 'number' && typeof s.data_dir === 'string' && typeof s.temporal_address === 'string' && typeof s.gateway_url === 'string';
};

/** Every entry of the file, alive or not; a missing or unreadable file is an empty list (it is only an index). */
export function readRunningStacks(file: string): RunningStack[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { stacks?: unknown };
    return Array.isArray(parsed.stacks) ? parsed.stacks.filter(isStack).map((s) => ({ ...s, sandbox: s.sandbox === true, namespace: s.namespace ?? 'default' })) : [];
  } catch {
    return [];
  }
}

/** The entries to keep when `stack` starts: the live ones of other data folders, then it. */
export function withStack(stacks: readonly RunningStack[], stack: RunningStack, isAlive: (pid: number) => boolean): RunningStack[] {
  return [...stacks.filter((s) => s.data_dir !== stack.data_dir && isAlive(s.pid)), stack];
}

/** The entries to keep when the stack of `pid` on `dataDir` stops: the live ones but it. */
export function withoutStack(stacks: readonly RunningStack[], dataDir: string, pid: number, isAlive: (pid: number) => boolean): RunningStack[] {
  return stacks.filter((s) => !(s.data_dir === dataDir && s.pid === pid) && isAlive(s.pid));
}

/** Through a temporary file and a rename: a reader sees the old list or the new one, never half of one. */
function writeRunningStacks(file: string, stacks: readonly RunningStack[]): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (stacks.length === 0) {
    rmSync(file, { force: true });
    return;
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ stacks }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

export function registerRunningStack(file: string, stack: RunningStack, isAlive = processAlive): void {
  writeRunningStacks(file, withStack(readRunningStacks(file), stack, isAlive));
}

export function unregisterRunningStack(file: string, dataDir: string, pid = process.pid, isAlive = processAlive): void {
  try {
    writeRunningStacks(file, withoutStack(readRunningStacks(file), dataDir, pid, isAlive));
  } catch {
    // Stopping goes on; a reader ignores the entry once this process is gone.
  }
}
