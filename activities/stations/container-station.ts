import type { Tracing } from '../../src/tracing/start-tracing';
import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { agentBundlePath } from '../../src/agent/bundle-agent';
import type { AgentTask, AgentTranscriptEntry, ReviewCycle } from '../../src/agent/agent-task';
import { parseAgentResult, parseTranscript } from '../../src/containers/agent-report';
import { readContainedFile, readContainedText } from '../../src/containers/contained-file';
import { exposeWorkspace, hostTreeDir, syncWorkspaceIntoHostTree, WorkspaceSyncError, type WorkspaceSyncReport } from '../../src/containers/workspace-sync';
import { stageAgentBundle } from '../../src/containers/mount-access';
import type { ServiceConfig } from '../../src/config/service-config';
import { containerName, type ContainerSpec } from '../../src/containers/container-args';
import { CONTAINER_AGENT_PATH, CONTAINER_RUN_DIR } from '../../src/agent/agent-task';
import type { GitRemotes } from '../../src/providers/git-remote-types';
import { proxyUpstreamOf, ProxyUpstreamError, startModelProxy } from '../../src/containers/model-proxy';
import { loadMcpServers, McpServersError, type McpServers } from '../../src/config/mcp-servers';
import { runToolServers } from '../../src/containers/run-tool-servers';
import { workerLabelValue, WORKER_LABEL } from '../../src/containers/orphan-sweep';
import type { PodmanAccount } from '../../src/containers/podman-account';
import { runContainer } from '../../src/containers/run-container';
import { chargedUsage, ledgerAfterAttempt, readSpendLedger, removeSpendLedger, spendLedgerWriter, type LedgerSpend } from '../../src/containers/spend-ledger';
import { commitWorkspace, prepareWorkspace, serviceBranch, WorkspaceCommitError, type WorkspaceCommit } from '../../src/containers/workspace';
import { removeTree } from '../../src/containers/remove-tree';
import type { Logger } from '../../src/logging/logger';
import type { ResolvedTarget } from '../../src/models/model-client';
import { redactSecrets } from '../../src/redaction/redact-secrets';
import { loadSkill, SkillError } from '../../src/skill-loading/load-skill';
import { STATION_FAILURE_TYPE, type StationActivity, type StationFailureDetails, type StationInput, type StationResult } from '../../workflows/runtime/station-types';
import { createHash } from 'node:crypto';
import { BUDGET_EXHAUSTED, BUDGET_RECOVERY, estimateTokens } from '../../src/budgets/token-budget';
import { currentBudgetMeter } from './budget-guard';
import { stationTraceContext } from './station-trace';
import { containerStationResult } from './container-result';
import { emptyReviewCycleTally, pollReviewCycles } from './review-cycle-poll';

/** What a station of the container family says about itself; everything else is common to the family. */
export interface ContainerStationSpec {
  /** The skill folder (`skills/<project>/<skill>` or `skills/default/<skill>`). */
  skill: string;
  /** The folder of its files under `.service/` (review cycles); the station name by default. */
  step?: string;
  /** The station's task text for the agent. */
  task(input: StationInput): string;
  /** Files the agent must write (relative to the workspace), e.g. `.service/rca.json`. */
  outputs?(input: StationInput): string[];
  /** `[KEY] ...` */
  commitMessage(input: StationInput): string;
  /**
   * Runs on the host in its own fresh clone before the container gets its copy (e.g. starts the merge whose
   * conflicts the agent resolves).
   */
  prepare?(hostTreeDir: string, input: StationInput): Promise<void>;
  /**
   * Checks the host's tree after the agent's changes were copied into it and before the commit; throws a station
   * failure to refuse the commit. Its files are the container's content: read them as data (`readContainedFile`).
   */
  beforeCommit?(hostTreeDir: string, input: StationInput): Promise<void>;
  /**
   * The agent works on its copy as usual, but the host takes nothing back: no copy into the host tree, no commit, no
   * push. Only the declared outputs are read (as data), and the whole station folder goes afterwards, so a second
   * run of the same spec within one attempt starts from a fresh clone. Outcomes: agent_failed, outputs_missing,
   * review_rejected, no_changes (never changed).
   */
  readOnly?: boolean;
}

export interface ContainerStationDeps {
  config: Pick<ServiceConfig, 'container' | 'autoReview'>;
  account: () => PodmanAccount;
  remotes: GitRemotes;
  /** The resolved model target of this station (SPEC 2.10); throws a StationFailure-worthy error when invalid. */
  resolveModel(input: StationInput): Promise<ResolvedTarget>;
  /**
   * The service account's fork of a repository, when it has one (a read): in `fork` mode the ticket branch lives
   * there, so a later visit continues it instead of starting over.
   */
  forkOf?(repository: string): Promise<string | undefined>;
  /** The repository of a ticket when params.repository does not say. */
  defaultRepository?(input: StationInput): Promise<string | undefined> | string | undefined;
  logger: Logger;
  skillsRoot?: string;
  /** LLM tracing: the model proxy traces the agent's calls. */
  tracing?: Tracing;
  /** Where `copy` mode of AUTO_REVIEW_RECORD_POLLED_FILES puts cycle files; `<workDir>/review-records` by default. */
  recordDir?: string;
  /** Model credentials for the proxy (the worker's environment by default); never passed to the container. */
  env?: NodeJS.ProcessEnv;
  /** The agent bundle to mount (built from the checkout's sources by default). */
  agentBundle?: () => Promise<string>;
  /** The tool servers (mcp-servers.json); the process's file, loaded and checked at startup, by default. */
  mcpServers?: McpServers;
}

function stationFailure(code: string, message: string, recovery?: string): ApplicationFailure {
  const details: StationFailureDetails = { code, message: redactSecrets(message), ...(recovery ? { recovery } : {}) };
  return ApplicationFailure.create({ type: STATION_FAILURE_TYPE, message: details.message, details: [details], nonRetryable: true });
}

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');
/** sun_path holds 108 bytes with its terminating zero; a longer path is cut short by the kernel. */
const MAX_SOCKET_PATH_BYTES = 107;

/** The station's folder: the host tree and the container's workspace (kept until the push ran). */
function stationBase(workDir: string, input: Pick<StationInput, 'ticket_key' | 'node' | 'visit' | 'run_id'>): string {
  return join(workDir, `${input.ticket_key.toLowerCase()}-${input.node}-${input.visit}-${input.run_id.slice(0, 12)}`);
}

/**
 * The run folder of one attempt (task, proxy socket, result), short and beside the station folders: the socket's
 * path must stay under the kernel's limit whatever the ticket, node and work folder are called.
 */
function runFolder(workDir: string, base: string): string {
  return join(workDir, `run-${digest(base).slice(0, 10)}`);
}

/**
 * The spend ledger of a station (every attempt of the same ticket, node, visit and run): beside the station folders,
 * in the work folder the container's account can traverse but not write, and outside every mount.
 */
function spendLedgerPath(workDir: string, base: string): string {
  return join(workDir, `spend-${digest(base).slice(0, 16)}.jsonl`);
}
const NO_LEFTOVER: LedgerSpend = { input_tokens: 0, output_tokens: 0, records: 0 };
const MAX_OUTPUT_CHARS = 32_000;
/** What the host reads of a file the container wrote: outputs, the result, the transcript (review cycles: agent-output-bounds.ts). */
const MAX_OUTPUT_BYTES = 256 * 1024;
const MAX_RESULT_BYTES = 1024 * 1024;
const MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024;

/**
 * What happened in the container, as the family's outcome. An output the host refused to read (a link, a FIFO, a
 * hard link) is as good as missing; a read-only run never has a commit, so it is never `changed`. Pure.
 */
export function containerOutcome(run: { agentStatus: string; outputsMissing: boolean; verdict: string; committed: boolean }): 'agent_failed' | 'outputs_missing' | 'review_rejected' | 'changed' | 'no_changes' {
  if (run.agentStatus === 'failed') return 'agent_failed';
  if (run.outputsMissing) return 'outputs_missing';
  if (run.verdict === 'REJECTED') return 'review_rejected';
  return run.committed ? 'changed' : 'no_changes';
}

/**
 * The container station family (DESIGN 7): clone on the host, run the agent with a skill in a short-lived rootless
 * container that has no credentials and (by default) no network, poll its review cycles while it runs, commit on
 * the host and ask for the push as a `git.push` effect. The station never pushes itself, so a retried station asks
 * for the same push under the same key and the effect journal keeps it to one.
 */
/** One attempt of a container station: clone, run the agent, take its work, describe the result. */
async function runContainerStationOnce(deps: ContainerStationDeps, spec: ContainerStationSpec, input: StationInput, context: Context | undefined, leftover: LedgerSpend): Promise<StationResult> {
  const { config } = deps;
  const logger = deps.logger.child({ ticket: input.ticket_key, node: input.node, station: input.station });
  const step = spec.step ?? input.station;
  const { repository, skill, resolved, upstream, toolServers } = await settleRun(deps, spec, input);
  const account = deps.account();
  const owner = account.switchUser ? { uid: account.uid, gid: account.gid } : undefined;
  const base = stationBase(config.container.workDir, input);
  // Host git runs only in hostDir, which no container ever sees; the container works on a copy (workspaceDir).
  const hostDir = hostTreeDir(base);
  const workspaceDir = join(base, 'workspace');
  const runDir = runFolder(config.container.workDir, base);
  const socketPath = join(runDir, 'model.sock');
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw stationFailure('work_dir_too_long', `the model proxy's socket ${socketPath} would be longer than the ${MAX_SOCKET_PATH_BYTES} bytes a unix socket path may have`, 'set CONTAINER_WORK_DIR to a shorter folder, restart the worker, then add service:retry');
  }
  const remote = deps.remotes.remoteFor(repository);
  const mode = input.params?.change_request_mode === 'fork' || input.params?.change_request_mode === 'direct' ? input.params.change_request_mode : remote.changeRequestMode;
  // A read-only run pushes nothing, so where the branch would be pushed does not matter.
  const fork = mode === 'fork' && !spec.readOnly ? await deps.forkOf?.(repository) : undefined;
  const timings: Record<string, number> = {};
  const setupStarted = Date.now();
  const workspace = await prepareFolders(config.container.workDir, { base, hostDir, workspaceDir, runDir, owner }, async () => {
    const prepared = await prepareWorkspace({ dir: hostDir, remote, branchRemote: fork ? deps.remotes.remoteFor(fork) : undefined, branch: serviceBranch(input.ticket_key), baseBranch: typeof input.params?.base_branch === 'string' ? input.params.base_branch : undefined });
    if (spec.prepare) await spec.prepare(hostDir, input);
    return prepared;
  });

  const outputs = spec.outputs?.(input) ?? [];
  // The budget is checked before the container starts (the task text is the first prompt); the proxy then
  // refuses any call once the remaining tokens are spent.
  const meter = currentBudgetMeter();
  const taskText = spec.task(input);
  // The meter already holds the leftover of a crashed attempt; without one the plain budget is cut by it here.
  const tokenBudget = meter
    ? await meter.allowance(estimateTokens(skill.body, taskText))
    : input.token_budget == null ? input.token_budget : Math.max(0, input.token_budget - leftover.input_tokens - leftover.output_tokens);
  const task: AgentTask = {
    step, ticket_key: input.ticket_key,
    skill: { name: skill.name, body: skill.body },
    ...(skill.review ? { review: { body: skill.review.body, max_retries: skill.review.maxRetries } } : {}),
    task: taskText, outputs, model: upstream.model,
    max_steps: config.container.agentMaxSteps,
    max_tokens: tokenBudget ?? 2_000_000,
    max_output_tokens: upstream.maxOutputTokens,
    command_timeout_seconds: config.container.agentCommandTimeoutSeconds,
    ...(toolServers.task.length ? { mcp_servers: toolServers.task } : {}),
  };
  await writeFile(join(runDir, 'task.json'), JSON.stringify(task, null, 2), { mode: 0o644 });
  const proxy = await startModelProxy({
    socketPath, upstream, tokenBudget, tracing: deps.tracing, socketOwner: owner,
    trace: { ...stationTraceContext(input), workflow_step: step, repo: repository },
    spendLedger: spendLedgerWriter(spendLedgerPath(config.container.workDir, base), leftover.records),
    mcpServers: toolServers.proxy,
  });
  // A copy in the work folder: the checkout's own folder may be private to the worker (issue 30, point 7).
  const agentPath = stageAgentBundle(await (deps.agentBundle ?? agentBundlePath)(), config.container.workDir);
  timings.setup_ms = Date.now() - setupStarted;

  // Bounded in count as well as size: a hostile agent may write thousands of cycle files (issue 41).
  const cycles = emptyReviewCycleTally();
  const recordCycle = reviewCycleRecorder(deps, input, step, logger);
  const pollCycles = () => pollReviewCycles(workspaceDir, join('.service', step), cycles, recordCycle);
  let lastPoll = 0;
  const egress = config.container.egressRepos.some((r) => r === '*' || r.toLowerCase() === repository.toLowerCase());
  const spec_ = containerSpecOf(config, input, { workspaceDir, runDir, agentPath, egress });
  const agentStarted = Date.now();
  let run;
  try {
    run = await runContainer({
      account, spec: spec_, timeoutSeconds: config.container.timeoutSeconds, signal: context?.cancellationSignal, tickMs: 1000,
      onTick: async () => {
        if (Date.now() - lastPoll >= config.autoReview.pollIntervalSeconds * 1000) {
          lastPoll = Date.now();
          await pollCycles();
        }
      },
    });
  } finally {
    await proxy.close();
    meter?.record(proxy.usage().input_tokens + proxy.usage().output_tokens);
    // The task file and the socket go with the run; the transcript and result are read below first.
    if (!(await readContainedFile(runDir, 'result.json', 1)).ok) await removeTree(runDir);
  }
  timings.agent_ms = Date.now() - agentStarted;
  await pollCycles();
  if (run.cancelled) throw context?.cancellationSignal.reason ?? new Error('cancelled');
  const refused = proxy.calls.find((call) => call.status === 429 && call.error?.includes('token budget'));
  if (refused && meter) await meter.allowance(1);
  if (refused) throw stationFailure(BUDGET_EXHAUSTED, `the ${input.station} container reached its token budget: ${refused.error}`, BUDGET_RECOVERY);
  if (run.timedOut) {
    throw stationFailure('container_timeout', `the ${input.station} container ran longer than CONTAINER_TIMEOUT (${config.container.timeoutSeconds} s) and was killed`, 'raise CONTAINER_TIMEOUT or make the task smaller, then add service:retry');
  }
  const { agent, transcript, outputTexts, refusedOutputs } = await readAgentRun({ runDir, workspaceDir, outputs, containerName: spec_.name, run });
  // Same kernel clock inside and outside: container launch to the first tool call, for the benchmark.
  if (transcript[0]) timings.launch_to_first_tool_call_ms = Date.parse(transcript[0].at) - transcript[0].ms - agentStarted;
  await writeFile(join(base, 'transcript.jsonl'), transcript.map((entry) => JSON.stringify(entry)).join('\n'));

  const teardownStarted = Date.now();
  // A read-only run's changes stay in the container's copy: the host neither copies nor commits anything.
  const { sync, commit } = spec.readOnly ? NOTHING_TAKEN : await takeWorkspace(spec, input, { workspaceDir, hostDir, agentFailed: agent.status === 'failed' });
  // The container's copy has served its purpose: the commit and the push use the host's tree, and without a
  // commit there is no push, so the whole station folder goes.
  await removeTree(runDir);
  await removeTree(commit.sha ? workspaceDir : base);
  timings.teardown_ms = Date.now() - teardownStarted;

  const verdict = agent.review.verdict;
  const outcome = containerOutcome({ agentStatus: agent.status, outputsMissing: agent.outputs_missing.length > 0 || refusedOutputs.length > 0, verdict, committed: Boolean(commit.sha) });
  const { result, bytes, trimmed } = containerStationResult({
    station: input.station, outcome, repository, workspace, commit, push: { hostDir, mode }, outputs: outputTexts, refused: [...refusedOutputs, ...sync.refused],
    agent, cycles, transcript, modelCalls: proxy.calls, toolServerCalls: proxy.mcpCalls,
    container: { name: run.name, exitCode: run.exitCode, durationMs: run.durationMs, warnings: run.warnings, egress }, timings,
    usage: { ...chargedUsage(leftover, proxy.usage()), model: `${resolved.target.connection}:${resolved.target.model}` },
  });
  if (trimmed.length > 0) logger.warn('container station result trimmed to its budget', { container: run.name, bytes, trimmed: trimmed.map((part) => `${part.part} (${part.bytes} bytes)`) });
  logger.info('container station finished', { outcome, container: run.name, duration_ms: run.durationMs, commit: commit.sha, read_only: Boolean(spec.readOnly), result_bytes: bytes });
  return result;
}

export function createContainerStations(deps: ContainerStationDeps) {
  const { config } = deps;
  return function containerStation(spec: ContainerStationSpec): StationActivity {
    return async (input) => {
      const context = activityContext();
      // Heartbeats from the first moment (a clone can take a while), so a cancellation reaches the station quickly.
      const beat = setInterval(() => context?.heartbeat({ station: input.station }), 1000);
      const ledgerPath = spendLedgerPath(config.container.workDir, stationBase(config.container.workDir, input));
      const meter = currentBudgetMeter();
      let end: Parameters<typeof ledgerAfterAttempt>[0] = 'other_error';
      try {
        // What an attempt killed mid-run spent is charged to this one, before its first budget check.
        const leftover = await readSpendLedger(ledgerPath).catch((error: unknown) => {
          deps.logger.warn('spend ledger unreadable; not charged', { ledger: ledgerPath, error: (error as Error).message });
          return NO_LEFTOVER;
        });
        if (leftover.records > 0) deps.logger.info('charging the spend of an earlier attempt', { ticket: input.ticket_key, node: input.node, ...leftover });
        meter?.record(leftover.input_tokens + leftover.output_tokens);
        const result = await runContainerStationOnce(deps, spec, input, context, leftover);
        end = 'returned';
        return result;
      } catch (error) {
        if (error instanceof ApplicationFailure && error.type === STATION_FAILURE_TYPE) end = 'station_failure';
        throw error;
      } finally {
        if (ledgerAfterAttempt(end, Boolean(meter)) === 'remove') await removeSpendLedger(ledgerPath);
        clearInterval(beat);
        // The run folder (task, socket, result) lives only as long as the attempt, whatever ended it; a read-only
        // run keeps nothing at all, also when it failed, so the next run of the same input starts clean.
        const base = stationBase(config.container.workDir, input);
        await removeTree(runFolder(config.container.workDir, base));
        if (spec.readOnly) await removeTree(base);
      }
    };
  };
}

/**
 * The station's folders, with the host tree prepared by `prepare` in between. The container's account must be able
 * to reach the mounts: the work folder is traversable, not listable; the run folder holds the task and the proxy's
 * socket, and only the container's account (and the worker) reach it. Host git runs only in the host tree.
 */
async function prepareFolders<T>(workDir: string, dirs: { base: string; hostDir: string; workspaceDir: string; runDir: string; owner?: { uid: number; gid: number } }, prepare: () => Promise<T>): Promise<T> {
  await mkdir(dirs.base, { recursive: true });
  await chmod(workDir, 0o711);
  await chmod(dirs.base, 0o711);
  const prepared = await prepare();
  await exposeWorkspace(dirs.hostDir, dirs.workspaceDir, dirs.owner);
  await removeTree(dirs.runDir);
  await mkdir(dirs.runDir, { recursive: true, mode: 0o700 });
  if (dirs.owner) await chown(dirs.runDir, dirs.owner.uid, dirs.owner.gid);
  return prepared;
}

/** What happens to each review cycle the host polled: logged, or copied as the parsed data the host checked. */
function reviewCycleRecorder(deps: ContainerStationDeps, input: StationInput, step: string, logger: Logger): (cycle: ReviewCycle) => Promise<void> {
  const { config } = deps;
  return async (cycle) => {
    if (config.autoReview.recordPolledFiles === 'log') logger.info('review cycle', { ...cycle });
    if (config.autoReview.recordPolledFiles === 'copy') {
      const dir = join(deps.recordDir ?? join(config.container.workDir, 'review-records'), input.ticket_key, `${input.node}-${input.visit}`, step);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `review_cycle_${cycle.cycle}.json`), JSON.stringify(cycle, null, 2));
    }
  };
}

/** The container of one attempt: named and labelled after its ticket, run and node (the orphan sweep reads the labels). */
function containerSpecOf(config: Pick<ServiceConfig, 'container'>, input: StationInput, mounts: Pick<ContainerSpec, 'workspaceDir' | 'runDir' | 'agentPath' | 'egress'>): ContainerSpec {
  return {
    name: containerName(input.ticket_key, input.run_id, input.node, `${input.visit}-${Date.now().toString(36)}`),
    image: config.container.image, memory: config.container.memoryLimit, cpus: config.container.cpuLimit, pids: config.container.pidsLimit,
    labels: { 'service.ticket': input.ticket_key, 'service.run': input.run_id, 'service.node': input.node, [WORKER_LABEL]: workerLabelValue() },
    ...mounts,
    command: ['node', CONTAINER_AGENT_PATH, CONTAINER_RUN_DIR],
  };
}

/** What a run needs settled before anything is cloned: each missing piece fails the station with what to fix. */
async function settleRun(deps: ContainerStationDeps, spec: ContainerStationSpec, input: StationInput) {
  const { config } = deps;
  const repository = (typeof input.params?.repository === 'string' ? input.params.repository : undefined) ?? (await deps.defaultRepository?.(input));
  if (!repository) throw stationFailure('repository_missing', `${input.ticket_key} has no repository for ${input.station}`, 'set service.default_repo or a repo: label on the ticket, then add service:retry');
  let skill;
  try {
    skill = loadSkill(spec.skill, { skillsRoot: deps.skillsRoot, projectKey: input.project_key, defaultMaxRetries: config.autoReview.maxRetries });
  } catch (error) {
    if (error instanceof SkillError) throw stationFailure('skill_invalid', error.message, 'fix the skill folder, then add service:retry');
    throw error;
  }
  const resolved = await deps.resolveModel(input);
  let upstream;
  try {
    upstream = proxyUpstreamOf(resolved.connection, resolved.target.model, deps.env);
  } catch (error) {
    if (error instanceof ProxyUpstreamError) throw stationFailure('model_target_unsupported', error.message, 'set what the message names in the worker\'s environment or the connection (or change the model policy), then add service:retry');
    throw error;
  }
  // The stage's tool servers: a credential missing now fails the station.
  let toolServers;
  try {
    toolServers = runToolServers(deps.mcpServers ?? loadMcpServers(deps.env ?? process.env), resolved.key, deps.env ?? process.env);
  } catch (error) {
    if (error instanceof McpServersError) throw stationFailure('mcp_servers_invalid', error.message, 'fix the tool-server file or the worker\'s environment, restart the worker, then add service:retry');
    throw error;
  }
  return { repository, skill, resolved, upstream, toolServers };
}

/**
 * What the agent left: its result (without one the station fails, and is not run again unasked: a crashed or hostile
 * agent would do the same), its transcript, and the output files it was asked for, each read inside the workspace.
 */
async function readAgentRun(input: { runDir: string; workspaceDir: string; outputs: readonly string[]; containerName: string; run: { exitCode: number | null; output: string } }) {
  const resultText = await readContainedText(input.runDir, 'result.json', MAX_RESULT_BYTES);
  const agent = resultText === undefined ? undefined : parseAgentResult(resultText);
  if (!agent) throw stationFailure('agent_result_missing', `the agent in ${input.containerName} ended (exit ${input.run.exitCode}) without a ${resultText === undefined ? '' : 'well-formed '}result: ${input.run.output.slice(-1500)}`, 'look at the station\'s container output, then add service:retry');
  const transcript = await readTranscript(input.runDir);
  const outputTexts: Record<string, string> = {};
  const refusedOutputs: Array<{ path: string; reason: string }> = [];
  for (const path of input.outputs) {
    const read = await readContainedFile(input.workspaceDir, path, MAX_OUTPUT_BYTES);
    if (read.ok) outputTexts[path] = read.bytes.toString('utf8').slice(0, MAX_OUTPUT_CHARS);
    else if (read.reason !== 'missing') refusedOutputs.push({ path, reason: read.detail });
  }
  return { agent, transcript, outputTexts, refusedOutputs };
}

const NOTHING_TAKEN: { sync: WorkspaceSyncReport; commit: WorkspaceCommit } = { sync: { written: [], removed: [], refused: [] }, commit: { sha: null, files: [] } };

/**
 * Copies the container's workspace into the host tree and commits it there. A workspace the host cannot take is the
 * agent's doing: running it again would make it again, so it ends the station with `workspace_refused` (issue 41).
 */
async function takeWorkspace(spec: ContainerStationSpec, input: StationInput, run: { workspaceDir: string; hostDir: string; agentFailed: boolean }) {
  try {
    const sync = await syncWorkspaceIntoHostTree(run.workspaceDir, run.hostDir);
    if (spec.beforeCommit && !run.agentFailed) await spec.beforeCommit(run.hostDir, input);
    const commit = await commitWorkspace(run.hostDir, spec.commitMessage(input));
    return { sync, commit };
  } catch (error) {
    if (error instanceof WorkspaceSyncError) throw stationFailure('workspace_refused', `the ${input.station} container left a workspace the host will not commit: ${error.message}`, error.recovery);
    if (error instanceof WorkspaceCommitError) throw stationFailure('workspace_refused', `the ${input.station} container left a workspace host git will not commit: ${error.message}`, 'change the task so that the agent does not make the path git names, then add service:retry');
    throw error;
  }
}

async function readTranscript(runDir: string): Promise<AgentTranscriptEntry[]> {
  return parseTranscript(await readContainedText(runDir, 'transcript.jsonl', MAX_TRANSCRIPT_BYTES) ?? '');
}
