import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContainerStations } from '../../activities/stations/container-station';
import { performGitPush } from '../../activities/git-effect-activities';
import type { ModelConnection } from '../config/model-configuration';
import type { ServiceConfig } from '../config/service-config';
import { createLogger } from '../logging/logger';
import type { ResolvedTarget } from '../models/model-client';
import { startModelSimulator, type ModelSimulator, type ScriptedReply } from '../sandbox/model-simulator/model-simulator';
import type { EffectAttemptResult } from '../../workflows/effects/effect-types';
import type { StationInput, StationResult } from '../../workflows/runtime/station-types';
import { runGit } from '../containers/git-remote';
import type { GitRemotes } from '../providers/git-remote-types';
import { resolvePodmanAccount } from '../containers/podman-account';

/**
 * One container station end to end on this machine, with no provider at all: a mocked git tree in a local bare
 * repository stands in for the source host, and the model simulator (or a model the caller resolved) answers the
 * agent. Used by `service smoke-test` and the container benchmark; everything lives in one disposable folder.
 */
export interface LocalStationRunOptions {
  container: ServiceConfig['container'];
  /** The file the agent is asked to write, relative to the workspace. */
  verificationFile: string;
  /** A real model target; the model simulator with a scripted conversation when absent. */
  model?: ResolvedTarget;
  keep?: boolean;
}

export interface LocalStationRun {
  result: StationResult;
  push: EffectAttemptResult | null;
  verificationText: string | undefined;
  workRoot: string;
  timings: { setup_ms: number; agent_ms: number; teardown_ms: number; total_ms: number; launch_to_first_tool_call_ms: number | null };
}

export function scriptedVerification(path: string): ScriptedReply[] {
  return [
    { tool_call: { name: 'list_files', arguments: '{}' } },
    { tool_call: { name: 'write_file', arguments: JSON.stringify({ path, content: `verified by the service agent at ${new Date().toISOString()}\n` }) } },
    { content: `Wrote ${path}.` },
  ];
}

export async function runLocalContainerStation(options: LocalStationRunOptions): Promise<LocalStationRun> {
  const started = Date.now();
  const workRoot = await mkdtemp(join(tmpdir(), 'service-smoke-'));
  await chmod(workRoot, 0o711);
  let simulator: ModelSimulator | undefined;
  try {
    const bare = join(workRoot, 'origin.git');
    const seed = join(workRoot, 'seed');
    await runGit(['init', '--quiet', '--bare', '--initial-branch', 'main', bare]);
    await runGit(['init', '--quiet', '--initial-branch', 'main', seed]);
    await writeFile(join(seed, 'README.md'), '# smoke\n\nA mocked repository for the service smoke test.\n');
    await mkdir(join(seed, 'src'), { recursive: true });
    await writeFile(join(seed, 'src', 'index.js'), 'console.log("hello");\n');
    await runGit(['add', '.'], { cwd: seed });
    await runGit(['-c', 'user.name=smoke', '-c', 'user.email=smoke@localhost', 'commit', '--quiet', '-m', 'mocked tree'], { cwd: seed });
    await runGit(['push', '--quiet', bare, 'main'], { cwd: seed });

    let resolved = options.model;
    if (!resolved) {
      simulator = await startModelSimulator({ replies: scriptedVerification(options.verificationFile) });
      const connection = { name: 'smoke-simulator', backend: 'openai-compatible', base_url: simulator.url, allowed_models: ['smoke-agent'], capabilities: ['tools'], max_output_tokens: 4096 } as unknown as ModelConnection;
      resolved = { key: 'implement_work', target: { connection: connection.name, model: 'smoke-agent' }, connection, source: 'deployment_default' } as ResolvedTarget;
    }
    const remotes: GitRemotes = { remoteFor: () => ({ url: bare, changeRequestMode: 'direct' }) };
    const station = createContainerStations({
      config: { container: { ...options.container, workDir: join(workRoot, 'workspaces') }, autoReview: { maxRetries: 0, pollIntervalSeconds: 1, recordPolledFiles: 'none' } },
      account: () => resolvePodmanAccount(), remotes, resolveModel: async () => resolved!, logger: createLogger({ level: 'error' }),
    })({
      skill: 'workspace-task',
      task: () => `This is a smoke test. Look at the repository, then create the file ${options.verificationFile} containing one line that says the agent ran.`,
      outputs: () => [options.verificationFile],
      commitMessage: (input) => `[${input.ticket_key}] smoke test`,
    });
    const input: StationInput = {
      ticket_key: 'SMOKE-1', project_key: 'SMOKE', issue_type: 'Task', workflow_kind: 'task' as StationInput['workflow_kind'], run_id: `smoke-${Date.now()}`,
      node: 'smoke', station: 'smoke', visit: 1, params: { repository: 'smoke/repo' }, artifacts: {}, outputs: {}, token_budget: 100_000,
    };
    const result = await station(input);
    const data = result.data as { outputs: Record<string, string>; timings: Record<string, number> };
    const pushIntent = result.effects?.find((effect) => effect.operation.kind === 'git.push');
    const push = pushIntent && pushIntent.operation.kind === 'git.push' ? await performGitPush({ remotes }, pushIntent.operation) : null;
    return {
      result, push, verificationText: data.outputs[options.verificationFile], workRoot,
      timings: { setup_ms: data.timings.setup_ms ?? 0, agent_ms: data.timings.agent_ms ?? 0, teardown_ms: data.timings.teardown_ms ?? 0, total_ms: Date.now() - started, launch_to_first_tool_call_ms: data.timings.launch_to_first_tool_call_ms ?? null },
    };
  } finally {
    await simulator?.close();
    if (!options.keep) await rm(workRoot, { recursive: true, force: true });
  }
}
