import type { ChatCompletionRequest, ScriptedReply } from './model-simulator';

/** Marks what the sandbox agent wrote: nobody should mistake it for a real model's work. */
export const SIMULATED_AGENT_TEXT = 'Simulated by the sandbox model: no real model was asked.';

/**
 * JSON outputs whose shape a station checks: a simulated agent writes a minimal valid one (the step passes), so a
 * ticket in `service dev --sandbox` walks the whole graph. Keyed by the output file's name.
 */
const SIMULATED_JSON: Record<string, unknown> = {
  'local_review.json': { verdict: 'passed', findings: [] },
  'code_review.json': { summary: 'Simulated review: nothing to flag.', findings: [] },
  'ci_analysis.json': { summary: 'Simulated analysis: no cause found.', causes: [] },
  'qualitative_review.json': { verdict: 'passed', findings: [] },
  'rca.json': simulatedRca(),
};

/**
 * The root-cause analysis of a bug (activities/stations/bug/rca-report.ts) with two fix options, so `>option 2`
 * has something to choose in the sandbox.
 */
export function simulatedRca(): Record<string, unknown> {
  return {
    summary: `Simulated root cause: the failing call is not guarded against the state the report describes. ${SIMULATED_AGENT_TEXT}`,
    code_location: { file: 'APP.md', function: '', line_range: '' },
    mechanism: 'Simulated mechanism: the component assumes a state the reported steps never reach.',
    trigger_to_symptom: 'Simulated chain: the reported steps lead to the unguarded call, which fails as the ticket shows.',
    hypothesis_log: ['Simulated: checked the component named in the ticket.'],
    introduced_in: 'unknown',
    confidence: { level: 'low', percentage: 10, rationale: SIMULATED_AGENT_TEXT },
    reproducibility: 'Simulated: follow the steps of the ticket.',
    options: [
      { title: 'Guard the failing call (simulated)', description: 'Check the state before the call and report a clear error.', tradeoffs: 'Small and safe; leaves the underlying design as it is.' },
      { title: 'Rework the component (simulated)', description: 'Change the component so the state cannot arise.', tradeoffs: 'Removes the cause; a larger change to review.' },
    ],
  };
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'object' && part && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
  return '';
}

/**
 * A task that must leave the repository alone except for its output files (a review, an analysis): the sandbox adds
 * no visible change there.
 */
export function isReadOnlyTask(task: string): boolean {
  return /do not change(?:, add or delete)? any file/i.test(task);
}

/** The files a container agent is asked to write: run-agent.ts ends the task with "Write these files: a, b." */
export function requestedFiles(task: string): string[] {
  const line = /Write these files: (.+)\.\s*$/m.exec(task);
  return line ? line[1]!.split(',').map((path) => path.trim()).filter(Boolean) : [];
}

function simulatedOutput(path: string): string {
  const name = path.split('/').pop() ?? path;
  if (name.endsWith('.json')) return `${JSON.stringify(SIMULATED_JSON[name] ?? { simulated: SIMULATED_AGENT_TEXT }, null, 2)}\n`;
  return `# ${name}\n\n${SIMULATED_AGENT_TEXT}\n`;
}

/** The task's ticket: every code-change task begins "Ticket <KEY>" (activities/stations/*-task-text.ts). */
export function taskTicketKey(task: string): string | undefined {
  return /\bTicket ([A-Z][A-Z0-9_]*-\d+)\b/.exec(task)?.[1];
}

/**
 * The one file the simulated agent changes for a ticket: its own, so that the pull requests of two tickets never
 * touch the same file and both can be merged (one shared file made every second merge a conflict).
 */
export function sandboxChangeFile(task: string): string {
  return `SANDBOX_CHANGES/${taskTicketKey(task) ?? 'no-ticket'}.md`;
}

/**
 * The sandbox's container agent (`service dev --sandbox` without a real model): in its first turn it writes every
 * file the task asks for and, unless told to change nothing, one visible change (the ticket's
 * `SANDBOX_CHANGES/<key>.md`) so that there is a commit to push and a pull request to open; after the tool results
 * it says it is done. Undefined for requests that are not an agent's (structured answers are the schema sampler's).
 */
export function sandboxAgentReply(request: ChatCompletionRequest, now: () => Date = () => new Date()): ScriptedReply | undefined {
  const tools = request.tools?.map((tool) => tool.function.name) ?? [];
  if (!tools.includes('write_file') || request.response_format) return undefined;
  const messages = request.messages ?? [];
  if (messages.at(-1)?.role === 'tool') return { content: `Done. ${SIMULATED_AGENT_TEXT}` };
  const task = text(messages.find((message) => message.role === 'user')?.content);
  const calls = requestedFiles(task).map((path) => ({ name: 'write_file', arguments: JSON.stringify({ path, content: simulatedOutput(path) }) }));
  if (!isReadOnlyTask(task)) {
    const line = task.split('\n').find((l) => l.trim()) ?? 'a task';
    calls.push({ name: 'write_file', arguments: JSON.stringify({ path: sandboxChangeFile(task), content: `# Simulated change\n\n${SIMULATED_AGENT_TEXT}\n\nTask: ${line.slice(0, 200)}\nAt: ${now().toISOString()}\n` }) });
  }
  return calls.length > 0 ? { tool_calls: calls } : { content: `Nothing to do. ${SIMULATED_AGENT_TEXT}` };
}
