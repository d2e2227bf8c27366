import { spawn } from 'node:child_process';
import { containerRunArgs, type ContainerSpec } from './container-args';
import { podman, podmanSpawnOptions, type PodmanAccount } from './podman-account';

export interface RunContainerOptions {
  account: PodmanAccount;
  spec: ContainerSpec;
  timeoutSeconds: number;
  /** Cancellation (the kill switch): the container is removed within a second or two of it. */
  signal?: AbortSignal;
  /** Called every tickMs while the container runs: heartbeats, review-cycle polling. */
  onTick?: () => void | Promise<void>;
  tickMs?: number;
}

export interface ContainerRun {
  name: string;
  exitCode: number | null;
  /** The container's own output, truncated (the agent's progress lines). */
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** podman's notes an operator should know, e.g. limits ignored on cgroup v1 rootless hosts. */
  warnings: string[];
}

const MAX_OUTPUT = 64_000;
const LIMITS_IGNORED = /Resource limits are not supported and ignored[^\n]*/;

/**
 * The fault campaign's light mode (chaos/, `npm run chaos -- --light`) and nothing else sets this: the agent runs as
 * a plain process on the same workspace and run folder instead of in a podman container, so that a seed takes
 * seconds. It gives up the container's isolation, so no deployment may set it.
 */
export const PLAIN_PROCESS_AGENT_ENV = 'SERVICE_CHAOS_PLAIN_PROCESS_AGENT';
const plainProcessAgent = () => process.env[PLAIN_PROCESS_AGENT_ENV] === '1';

/** Removes a container whatever its state; a container that is already gone is fine. */
export async function removeContainer(account: PodmanAccount, name: string): Promise<void> {
  if (plainProcessAgent()) return;
  await podman(account, ['rm', '--force', '--time', '0', '--ignore', name], 60_000);
}

/** The container runs of this process that have not yet ended with their container removed. */
const unfinishedRuns = new Set<Promise<unknown>>();

/**
 * Resolves once every container run this process started has ended and its container is removed, or after
 * `timeoutMs`; says which. A cancelled station reports its cancellation before its container is gone (the kill
 * switch does not wait on podman), so a stopping worker waits here before it exits: no container outlives it.
 */
export async function containerRunsSettled(timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
  try {
    return await Promise.race([Promise.allSettled([...unfinishedRuns]).then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one task container to its end and always removes it: when it exits, fails, times out (CONTAINER_TIMEOUT) or
 * is cancelled. The time limit is enforced here rather than by the kernel because rootless podman on cgroup v1
 * ignores memory, CPU and pids limits (recorded as a warning).
 */
export function runContainer(options: RunContainerOptions): Promise<ContainerRun> {
  const run = runAndRemove(options);
  unfinishedRuns.add(run);
  void run.finally(() => unfinishedRuns.delete(run)).catch(() => undefined);
  return run;
}

async function runAndRemove(options: RunContainerOptions): Promise<ContainerRun> {
  const { account, spec } = options;
  const started = Date.now();
  let timedOut = false;
  let cancelled = false;
  let output = '';
  const child = plainProcessAgent()
    ? spawn(process.execPath, [spec.agentPath, spec.runDir], {
      ...podmanSpawnOptions(account), cwd: spec.workspaceDir, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...podmanSpawnOptions(account).env, SERVICE_WORKSPACE: spec.workspaceDir },
    })
    : spawn('podman', containerRunArgs(spec), { ...podmanSpawnOptions(account), stdio: ['ignore', 'pipe', 'pipe'] });
  const append = (chunk: Buffer) => {
    if (output.length < MAX_OUTPUT) output += chunk.toString('utf8');
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', (error) => { output += `\n${error.message}`; resolve(null); });
    child.on('close', (code) => resolve(code));
  });

  // A container still being created when the first removal runs escapes it, so removal repeats until `podman run`
  // has returned, and once more after that.
  let stopper: NodeJS.Timeout | undefined;
  const stop = () => {
    if (plainProcessAgent()) { child.kill('SIGKILL'); return; }
    if (stopper) return;
    void removeContainer(account, spec.name);
    stopper = setInterval(() => void removeContainer(account, spec.name), 2000);
  };
  const timer = setTimeout(() => { timedOut = true; void stop(); }, options.timeoutSeconds * 1000);
  const onAbort = () => { cancelled = true; void stop(); };
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let ticking = false;
  const ticker = options.onTick ? setInterval(() => {
    if (ticking) return;
    ticking = true;
    void Promise.resolve(options.onTick!()).catch(() => undefined).finally(() => { ticking = false; });
  }, options.tickMs ?? 1000) : undefined;

  try {
    const exitCode = await exited;
    const warnings = LIMITS_IGNORED.test(output) ? [`${LIMITS_IGNORED.exec(output)![0].trim()}: memory, CPU and pids limits are not enforced on this host; the time limit is`] : [];
    return { name: spec.name, exitCode, output: output.replace(LIMITS_IGNORED, '').trim(), timedOut, cancelled, durationMs: Date.now() - started, warnings };
  } finally {
    clearTimeout(timer);
    if (ticker) clearInterval(ticker);
    options.signal?.removeEventListener('abort', onAbort);
    if (stopper) clearInterval(stopper);
    await removeContainer(account, spec.name);
  }
}
