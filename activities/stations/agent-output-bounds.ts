import type { AgentTranscriptEntry, ReviewCycle } from '../../src/agent/agent-task';
import type { McpProxyCall, ProxyCall } from '../../src/containers/model-proxy';

/**
 * How much of what a container's agent wrote reaches Temporal, kind by kind (issue 41). The agent is hostile: its
 * strings are bounded where they are parsed (src/containers/agent-report.ts), and these bound the counts, so that a
 * station result stays far below Temporal's 2 MB payload limit (an activity result over it is refused and the ticket
 * blocks). A list keeps its first N (its last N where the latest tell most: the transcript and the calls) and says
 * beside itself how many it dropped (`<list>_dropped`), so an operator sees that there was more.
 */
export const AGENT_OUTPUT_BOUNDS = {
  /**
   * Review cycles (`.service/<step>/review_cycle_<N>.json`) read, recorded and returned: the lowest 20 numbers. An
   * agent of this build writes at most the skill's max_retries + 1 (AUTO_REVIEW_MAX_RETRIES is 3 by default).
   */
  reviewCycles: 20,
  /** Names of the cycle folder looked at per poll: a folder of a million names costs one bounded listing. */
  cycleNamesPerPoll: 5_000,
  /** Cycle files opened per poll: a file that is not a cycle (yet) is tried again at the next poll, not in a loop. */
  cycleReadsPerPoll: 40,
  /** What is read of one cycle file; a cycle's fields fit in a few KiB. */
  cycleFileBytes: 256 * 1024,
  /** A cycle's feedback in the result: what the workflow keeps of any output string. The records keep it whole. */
  cycleFeedbackChars: 2_000,
  /** Paths of the commit's changed files. */
  changedFiles: 200,
  /** One path in a list (a git path may be 4 KiB, four times that once quoted). */
  pathChars: 500,
  /** Outputs and workspace entries the host refused to read or copy. */
  refusedPaths: 50,
  /** The reason next to a refused path. */
  reasonChars: 300,
  /** Transcript entries: the last 50 tool calls. */
  transcriptEntries: 50,
  /** A tool call's input in the result (the transcript file on the host has 2,000). */
  transcriptInputChars: 200,
  /** Model calls through the proxy: the last 50. */
  modelCalls: 50,
  /** Tool-server calls through the proxy: the last 50. */
  toolServerCalls: 50,
  /** An error text of a call, and a tool server's name as the container asked for it. */
  callErrorChars: 300,
  callNameChars: 100,
  /** Findings of a local or qualitative review kept for the next run. */
  findings: 30,
  /** A finding's problem or suggestion, and a file name in it. */
  findingChars: 2_000,
  /** Causes of a CI analysis handed to the fix. */
  ciCauses: 20,
  /** A cause's text fields and the analysis summary. */
  ciCauseChars: 2_000,
  /** Schema problems named in an error about an agent's file. */
  schemaIssues: 10,
  /** File names listed in one error or one line (conflicts left, conflicts resolved). */
  namesInText: 20,
} as const;

export type AgentOutputBounds = { readonly [K in keyof typeof AGENT_OUTPUT_BOUNDS]: number };

export interface Kept<T> {
  kept: T[];
  dropped: number;
}

/** The first `max` items and how many were left out. Pure. */
export function keepFirst<T>(items: readonly T[], max: number): Kept<T> {
  return { kept: items.slice(0, max), dropped: Math.max(0, items.length - max) };
}

/** The last `max` items and how many were left out. Pure. */
export function keepLast<T>(items: readonly T[], max: number): Kept<T> {
  return { kept: max > 0 ? items.slice(-max) : [], dropped: Math.max(0, items.length - max) };
}

/** `{ <name>_dropped: n }` when something was dropped, else nothing: spread beside the list. */
export function droppedCount<N extends string>(name: N, kept: Pick<Kept<unknown>, 'dropped'>): { [K in `${N}_dropped`]?: number } {
  return (kept.dropped > 0 ? { [`${name}_dropped`]: kept.dropped } : {}) as { [K in `${N}_dropped`]?: number };
}

export const clip = (text: string, max: number): string => (text.length <= max ? text : text.slice(0, max));

/** Names for one line of text: the first few, then how many more. Pure. */
export function namesInText(names: readonly string[], max: number = AGENT_OUTPUT_BOUNDS.namesInText): string {
  const { kept, dropped } = keepFirst(names, max);
  const shown = kept.map((name) => clip(name, AGENT_OUTPUT_BOUNDS.pathChars)).join(', ');
  return dropped > 0 ? `${shown} and ${dropped} more` : shown;
}

/** Schema problems of an agent's file as one line: the first few, then how many more. Pure. */
export function issuesText(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, max: number = AGENT_OUTPUT_BOUNDS.schemaIssues): string {
  const { kept, dropped } = keepFirst(issues, max);
  const shown = kept.map((issue) => `${clip(issue.path.map(String).join('.'), 200) || '(file)'} ${clip(issue.message, 300)}`).join('; ');
  return dropped > 0 ? `${shown}; and ${dropped} more problems` : shown;
}

/** What a run left that the container's agent shaped, before it is bounded. */
export interface RunRecords {
  files: readonly string[];
  refused: ReadonlyArray<{ path: string; reason: string }>;
  cycles: readonly ReviewCycle[];
  /** Cycle files the polls saw but did not keep (pollReviewCycles). */
  cyclesDropped: number;
  /** The last listing of the cycle folder stopped at its bound: there may have been more cycle files. */
  cycleListingCut: boolean;
  transcript: readonly AgentTranscriptEntry[];
  modelCalls: readonly ProxyCall[];
  toolServerCalls: readonly McpProxyCall[];
}

/**
 * The lists of a container station's `data`, each at most its bound with its dropped count beside it. `review`
 * carries the cycles; its verdict is the caller's. Pure.
 */
export function boundedRunRecords(run: RunRecords, bounds: AgentOutputBounds = AGENT_OUTPUT_BOUNDS) {
  const files = keepFirst(run.files, bounds.changedFiles);
  const refused = keepFirst(run.refused, bounds.refusedPaths);
  const cycles = keepFirst(run.cycles, bounds.reviewCycles);
  const transcript = keepLast(run.transcript, bounds.transcriptEntries);
  const modelCalls = keepLast(run.modelCalls, bounds.modelCalls);
  const toolServerCalls = keepLast(run.toolServerCalls, bounds.toolServerCalls);
  const cyclesDropped = run.cyclesDropped + cycles.dropped;
  return {
    files: files.kept.map((path) => clip(path, bounds.pathChars)),
    ...droppedCount('files', files),
    ...(refused.kept.length > 0 ? { refused: refused.kept.map((entry) => ({ path: clip(entry.path, bounds.pathChars), reason: clip(entry.reason, bounds.reasonChars) })), ...droppedCount('refused', refused) } : {}),
    review: {
      cycles: cycles.kept.map((cycle) => ({ ...cycle, feedback: clip(cycle.feedback, bounds.cycleFeedbackChars) })),
      ...(cyclesDropped > 0 ? { cycles_dropped: cyclesDropped } : {}),
      ...(run.cycleListingCut ? { cycles_listing_cut_at: bounds.cycleNamesPerPoll } : {}),
    },
    transcript: transcript.kept.map((entry) => ({ tool: entry.tool, input: clip(entry.input, bounds.transcriptInputChars), ms: entry.ms })),
    ...droppedCount('transcript', transcript),
    model_calls: modelCalls.kept.map((call) => (call.error === undefined ? call : { ...call, error: clip(call.error, bounds.callErrorChars) })),
    ...droppedCount('model_calls', modelCalls),
    ...(toolServerCalls.kept.length > 0 ? {
      tool_server_calls: toolServerCalls.kept.map((call) => ({
        ...call, server: clip(call.server, bounds.callNameChars), method: clip(call.method, 20), ...(call.error === undefined ? {} : { error: clip(call.error, bounds.callErrorChars) }),
      })),
      ...droppedCount('tool_server_calls', toolServerCalls),
    } : {}),
  };
}
