import { createHash } from 'node:crypto';
import type { AgentResult, AgentTranscriptEntry } from '../../src/agent/agent-task';
import type { McpProxyCall, ProxyCall } from '../../src/containers/model-proxy';
import type { Workspace, WorkspaceCommit } from '../../src/containers/workspace';
import type { StationResult } from '../../workflows/runtime/station-types';
import { boundedRunRecords, clip } from './agent-output-bounds';
import { keptCycles, type ReviewCycleTally } from './review-cycle-poll';
import { boundStationResult, type BoundedStationResult } from './station-result-bound';

/** What one run of a container station left, as the host read it; the agent shaped most of it. */
export interface ContainerRunFacts {
  station: string;
  outcome: string;
  repository: string;
  workspace: Pick<Workspace, 'branch' | 'baseSha' | 'resumed'>;
  commit: WorkspaceCommit;
  /** Where the push of a commit goes from: the host tree, and the change-request mode. */
  push: { hostDir: string; mode: 'direct' | 'fork' };
  /** The declared outputs the host read, by path (each already cut to its character bound). */
  outputs: Record<string, string>;
  refused: ReadonlyArray<{ path: string; reason: string }>;
  agent: AgentResult;
  cycles: ReviewCycleTally;
  transcript: readonly AgentTranscriptEntry[];
  modelCalls: readonly ProxyCall[];
  toolServerCalls: readonly McpProxyCall[];
  container: { name: string; exitCode: number | null; durationMs: number; warnings: string[]; egress: boolean };
  timings: Record<string, number>;
  usage: NonNullable<StationResult['usage']>;
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The container family's result: every list at its bound with its dropped count (agent-output-bounds.ts), then the
 * whole within STATION_RESULT_BUDGET_BYTES (station-result-bound.ts), so what reaches Temporal stays small whatever
 * the agent wrote. Pure.
 */
export function containerStationResult(run: ContainerRunFacts): BoundedStationResult {
  const { agent, commit, workspace } = run;
  const verdict = agent.review.verdict;
  const { review, ...records } = boundedRunRecords({
    files: commit.files, refused: run.refused, cycles: keptCycles(run.cycles), cyclesDropped: run.cycles.dropped, cycleListingCut: run.cycles.listingCut,
    transcript: run.transcript, modelCalls: run.modelCalls, toolServerCalls: run.toolServerCalls,
  });
  return boundStationResult({
    outcome: run.outcome,
    data: {
      repository: run.repository, branch: workspace.branch, base_sha: workspace.baseSha, resumed: workspace.resumed, commit_sha: commit.sha,
      outputs: run.outputs,
      ...records,
      agent: { status: agent.status, message: agent.message, steps: agent.steps, tool_calls: agent.tool_calls, final_text: clip(agent.final_text, 2000), first_tool_call_ms: agent.first_tool_call_ms },
      review: { verdict, ...review },
      container: { name: run.container.name, exit_code: run.container.exitCode, duration_ms: run.container.durationMs, warnings: run.container.warnings, egress: run.container.egress },
      timings: run.timings,
    },
    artifacts: Object.fromEntries(Object.entries(run.outputs).map(([path, text]) => [path, { text, digest: digest(text) }])),
    effects: commit.sha ? [{
      name: 'push', required: true,
      operation: { kind: 'git.push', repository: run.repository, branch: workspace.branch, commit_sha: commit.sha, base_sha: workspace.resumed ? workspace.baseSha : null, workspace: run.push.hostDir, mode: run.push.mode },
    }] : [],
    summary: `${run.station}: agent ${agent.status} in ${agent.steps} steps, ${commit.files.length} files changed${verdict !== 'not_reviewed' ? `, review ${verdict}` : ''}`,
    usage: run.usage,
  });
}
