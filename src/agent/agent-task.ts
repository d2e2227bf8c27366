/**
 * What the host hands the in-container agent (`/run/service/task.json`) and what the agent hands back
 * (`/run/service/result.json`). Shared by the agent bundle and the container station, so both sides agree on the
 * shape. SPEC-fixed or file-facing JSON keeps snake_case.
 */
export interface AgentTask {
  /** The station's step name: review cycle files go to `.service/<step>/`. */
  step: string;
  ticket_key: string;
  skill: { name: string; body: string };
  /** The reviewer pass (review.md); absent or max_retries 0 = no review. */
  review?: { body: string; max_retries: number };
  /** The station's task text. */
  task: string;
  /** Files (relative to the workspace) the station asks for, e.g. `.service/rca.json`. */
  outputs: string[];
  /** The model the proxy allows; the agent cannot choose another. */
  model: string;
  max_steps: number;
  /** Tokens (input + output) the agent may spend across all its passes; the proxy enforces the stage budget too. */
  max_tokens: number;
  max_output_tokens: number;
  command_timeout_seconds: number;
  /** The tool servers this stage may use (mcp-servers.json); absent = none. */
  mcp_servers?: AgentMcpServer[];
}

/**
 * A tool server as the agent sees it. A stdio server is started by the agent inside the container; an http server is
 * only a name: the agent calls `http://proxy/mcp/<name>` on the proxy socket, which adds the URL and credentials.
 */
export type AgentMcpServer =
  | { name: string; transport: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { name: string; transport: 'http' };

export interface AgentTranscriptEntry {
  at: string;
  pass: string;
  tool: string;
  /** Redacted and truncated. */
  input: string;
  output: string;
  ms: number;
}

export interface ReviewCycle {
  cycle: number;
  max_cycles: number;
  verdict: 'APPROVED' | 'REJECTED';
  feedback: string;
  skill: string;
  elapsed_seconds: number;
  timestamp: string;
}

export type AgentStatus = 'completed' | 'step_cap' | 'token_cap' | 'failed';

export interface AgentResult {
  status: AgentStatus;
  /** Why, when not completed. */
  message?: string;
  steps: number;
  tool_calls: number;
  usage: { input_tokens: number; output_tokens: number };
  outputs_missing: string[];
  review: { verdict: 'APPROVED' | 'REJECTED' | 'not_reviewed'; cycles: number };
  final_text: string;
  /** Milliseconds from agent start to its first tool call (benchmarks), null when none was made. */
  first_tool_call_ms: number | null;
}

/** Paths inside the container. */
export const CONTAINER_WORKSPACE = '/workspace';
export const CONTAINER_RUN_DIR = '/run/service';
export const CONTAINER_AGENT_PATH = '/opt/service/agent.cjs';
