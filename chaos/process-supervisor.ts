/**
 * The one place the campaign starts, kills and restarts the service's processes: the Temporal dev server on its
 * SQLite file, the worker and the gateway, each a real child process. A fault is a SIGKILL (no drain, no goodbye),
 * and a restart starts the same command with the same environment, as a process manager would.
 *
 * `worker2` is a second `service worker` on the same task queue, as a second host would run it: started and stopped
 * (SIGTERM or SIGKILL) as a fault, so activities land on either worker. It runs with environment of its own (its
 * metrics port, its work folder) and is brought back by the watchdog only between its start and its stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startDevServer, type RunningDevServer } from '../src/temporal/dev-server';
import type { DevServerPlan } from '../src/temporal/dev-stack-config';
import { projectRoot } from '../src/temporal/temporal-cli-locator';

export type SupervisedName = 'temporal' | 'worker' | 'gateway' | 'worker2';
type NodeName = Exclude<SupervisedName, 'temporal'>;

export interface SupervisorEvent {
  at: number;
  name: SupervisedName;
  what: 'started' | 'killed' | 'exited' | 'stopped';
  detail?: string;
}

interface NodeChild {
  process: ChildProcess;
  output: string;
  exited: Promise<void>;
}

export interface ProcessSupervisor {
  start(name: SupervisedName): Promise<void>;
  /** SIGKILL; resolves once the process is gone. The watchdog starts it again after downMs. */
  kill(name: SupervisedName, downMs?: number): Promise<void>;
  /**
   * Stops a process for good (the watchdog leaves it down until it is started again): SIGTERM lets a worker drain
   * (SIGKILL after 15 s), SIGKILL does not. Resolves once it is gone.
   */
  stop(name: NodeName, signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /**
   * Restarts any process that is not running (killed, or exited because Temporal went away) once its down time is
   * over, Temporal first, as a process manager with a restart policy would. Returns the stop function.
   */
  watch(intervalMs?: number): () => void;
  running(name: SupervisedName): boolean;
  /** The last part of a process's output (all of its lives), for a failure report. */
  output(name: SupervisedName): string;
  readonly events: SupervisorEvent[];
  stopAll(): Promise<void>;
}

const READY: Record<'worker' | 'gateway', RegExp> = { worker: /worker polling task queue/, gateway: /gateway listening on/ };
const NODE_NAMES: readonly NodeName[] = ['worker', 'gateway', 'worker2'];
const KEEP_OUTPUT = 200_000;

export interface SupervisorOptions {
  cliPath: string;
  plan: DevServerPlan;
  /** The environment of every service process. */
  env: NodeJS.ProcessEnv;
  /** What one process sets on top of `env` (the second worker's metrics port and work folder). */
  envOf?: Partial<Record<NodeName, NodeJS.ProcessEnv>>;
  startTimeoutMs?: number;
}

/** The `service` subcommand each supervised process runs. */
const COMMAND: Record<NodeName, 'worker' | 'gateway'> = { worker: 'worker', gateway: 'gateway', worker2: 'worker' };

export function createProcessSupervisor(options: SupervisorOptions): ProcessSupervisor {
  const root = projectRoot();
  const bin = join(root, 'bin', 'run.js');
  const events: SupervisorEvent[] = [];
  const outputs: Record<SupervisedName, string> = { temporal: '', worker: '', gateway: '', worker2: '' };
  let server: RunningDevServer | undefined;
  const children: Partial<Record<NodeName, NodeChild>> = {};
  // Processes the watchdog keeps up; the second worker only between its start and its stop.
  const wanted = new Set<SupervisedName>(['temporal', 'worker', 'gateway']);
  const note = (name: SupervisedName, what: SupervisorEvent['what'], detail?: string) => events.push({ at: Date.now(), name, what, ...(detail ? { detail } : {}) });
  const append = (name: SupervisedName, text: string) => { outputs[name] = (outputs[name] + text).slice(-KEEP_OUTPUT); };

  const startNode = async (name: NodeName) => {
    const child = spawn(process.execPath, [bin, COMMAND[name]], { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env, ...options.envOf?.[name] }, stdio: ['ignore', 'pipe', 'pipe'] });
    const entry: NodeChild = { process: child, output: '', exited: new Promise((resolve) => child.once('exit', (code, signal) => { note(name, 'exited', String(signal ?? code)); resolve(); })) };
    children[name] = entry;
    append(name, `\n----- ${name} started (pid ${child.pid}) at ${new Date().toISOString()} -----\n`);
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not get ready within ${options.startTimeoutMs ?? 90_000} ms:\n${entry.output.slice(-3000)}`)), options.startTimeoutMs ?? 90_000);
      const onData = (chunk: Buffer) => {
        const text = chunk.toString();
        entry.output += text;
        append(name, text);
        if (READY[COMMAND[name]].test(entry.output)) { clearTimeout(timer); resolve(); }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      void entry.exited.then(() => { clearTimeout(timer); reject(new Error(`${name} exited before it was ready:\n${entry.output.slice(-3000)}`)); });
    });
    await ready;
    note(name, 'started', `pid ${child.pid}`);
  };

  const downUntil: Partial<Record<SupervisedName, number>> = {};
  const starting = new Set<SupervisedName>();
  // The campaign interrupted (Ctrl-C, a crash) must not leave a worker, a gateway or a server behind.
  const killAllNow = () => {
    for (const child of [...NODE_NAMES.map((name) => children[name]?.process), server?.process]) if (child && alive(child)) child.kill('SIGKILL');
  };
  process.once('exit', killAllNow);
  const alive = (child: ChildProcess | undefined) => Boolean(child && child.exitCode === null && child.signalCode === null);

  return {
    events,
    output: (name) => outputs[name],
    running: (name) => (name === 'temporal' ? alive(server?.process) : alive(children[name]?.process)),
    async start(name) {
      wanted.add(name);
      if (name === 'temporal') {
        append('temporal', `\n----- temporal started at ${new Date().toISOString()} -----\n`);
        server = await startDevServer(options.cliPath, options.plan, { timeoutMs: options.startTimeoutMs ?? 90_000, onOutput: (text) => append('temporal', text) });
        note('temporal', 'started', `pid ${server.process.pid}`);
        return;
      }
      await startNode(name);
    },
    watch(intervalMs = 500) {
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        void (async () => {
          for (const name of ['temporal', ...NODE_NAMES] as const) {
            if (!wanted.has(name)) continue;
            const running = name === 'temporal' ? alive(server?.process) : alive(children[name]?.process);
            if (running || starting.has(name) || Date.now() < (downUntil[name] ?? 0)) continue;
            if (name !== 'temporal' && !alive(server?.process)) continue;
            starting.add(name);
            try {
              await this.start(name);
            } catch (error) {
              append(name, `\n----- restart failed: ${(error as Error).message.split('\n')[0]} -----\n`);
            } finally {
              starting.delete(name);
            }
          }
        })().finally(() => { busy = false; });
      }, intervalMs);
      return () => clearInterval(timer);
    },
    async kill(name, downMs = 0) {
      downUntil[name] = Date.now() + downMs;
      const child = name === 'temporal' ? server?.process : children[name]?.process;
      if (!child || !alive(child)) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await gone;
      note(name, 'killed');
    },
    async stop(name, signal) {
      wanted.delete(name);
      const child = children[name];
      if (!child || !alive(child.process)) return;
      child.process.kill(signal);
      const timer = signal === 'SIGTERM' ? setTimeout(() => child.process.kill('SIGKILL'), 15_000) : undefined;
      await child.exited;
      clearTimeout(timer);
      note(name, signal === 'SIGKILL' ? 'killed' : 'stopped', `${signal}, not restarted`);
    },
    async stopAll() {
      process.off('exit', killAllNow);
      for (const name of ['gateway', 'worker2', 'worker'] as const) {
        const child = children[name];
        if (child && alive(child.process)) {
          child.process.kill('SIGTERM');
          const timer = setTimeout(() => child.process.kill('SIGKILL'), 15_000);
          await child.exited;
          clearTimeout(timer);
          note(name, 'stopped');
        }
      }
      if (server && alive(server.process)) {
        await server.stop();
        note('temporal', 'stopped');
      }
    },
  };
}
