import { appendFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, type LanguageModel, type ModelMessage, type StopCondition, type ToolSet } from 'ai';
import { redactSecrets } from '../redaction/redact-secrets';
import { createAgentTools, workspacePath } from './agent-tools';
import type { AgentResult, AgentTask, AgentTranscriptEntry, ReviewCycle } from './agent-task';
import { reviewFeedback, reviewVerdict } from './review-verdict';
import { unixSocketFetch } from './unix-socket-fetch';

export interface AgentPaths {
  workspace: string;
  runDir: string;
}

const RULES = [
  'You work in a git checkout at the current folder. Use the tools to read, change and check files; do not ask questions.',
  'Write every output file the task asks for. Paths are relative to the workspace root.',
  'Do not commit or push: the host commits your changes. Never print or write credentials.',
  'When you are done, answer with a short summary of what you changed.',
].join('\n');

/** The model behind the host's proxy: the socket is the only way out of the container. */
export function proxyModel(socketPath: string, model: string): LanguageModel {
  return createOpenAICompatible({ name: 'service-proxy', baseURL: 'http://model-proxy/v1', fetch: unixSocketFetch(socketPath) }).chatModel(model);
}

function clip(value: unknown, limit = 2000): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return redactSecrets(text.length > limit ? `${text.slice(0, limit)}...` : text);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isFile() && s.size > 0, () => false);
}

/**
 * The agent: runs the skill as a tool loop, then (when the skill has a review.md) a reviewer pass whose verdict
 * decides whether the skill runs again with the reviewer's feedback. Stops at the step and token caps. Every tool
 * call goes to a redacted transcript the host keeps for the timeline; every review cycle to
 * `.service/<step>/review_cycle_<N>.json`, which the host polls while the container runs.
 */
export async function runAgent(task: AgentTask, paths: AgentPaths, model: LanguageModel, extra: { tools?: ToolSet } = {}): Promise<AgentResult> {
  const started = Date.now();
  const transcriptPath = join(paths.runDir, 'transcript.jsonl');
  const tools = createAgentTools(paths.workspace, task.command_timeout_seconds);
  // Tool-server tools (mcp-tools.ts) come after the agent's own, whose names they never take.
  const offered: ToolSet = { ...extra.tools, ...tools };
  const usage = { input_tokens: 0, output_tokens: 0 };
  let steps = 0;
  let toolCalls = 0;
  let firstToolCallMs: number | null = null;
  let finalText = '';
  let status: AgentResult['status'] = 'completed';
  const spent = () => usage.input_tokens + usage.output_tokens;

  const record = async (entry: AgentTranscriptEntry) => appendFile(transcriptPath, `${JSON.stringify(entry)}\n`);
  // Wrap each tool so the transcript sees the call with its timing, whatever the model does next.
  const recorded = (pass: string): ToolSet => Object.fromEntries(Object.entries(offered).map(([name, t]) => [name, {
    ...t,
    execute: async (input: unknown, options: unknown) => {
      const callStarted = Date.now();
      firstToolCallMs ??= callStarted - started;
      toolCalls += 1;
      const output = await (t.execute as (i: unknown, o: unknown) => Promise<unknown>)(input, options);
      await record({ at: new Date().toISOString(), pass, tool: name, input: clip(input), output: clip(output), ms: Date.now() - callStarted });
      return output;
    },
  }]));

  const tokenCap: StopCondition<ToolSet> = () => spent() >= task.max_tokens;
  const pass = async (name: string, system: string, messages: ModelMessage[], withTools: boolean) => {
    const remainingSteps = Math.max(1, task.max_steps - steps);
    const result = await generateText({
      model,
      system,
      messages,
      ...(withTools ? { tools: recorded(name), stopWhen: [stepCountIs(remainingSteps), tokenCap] } : {}),
      maxOutputTokens: task.max_output_tokens,
      maxRetries: 1,
      onStepFinish: (step) => {
        steps += 1;
        usage.input_tokens += step.usage.inputTokens ?? 0;
        usage.output_tokens += step.usage.outputTokens ?? 0;
      },
    });
    if (withTools && result.finishReason === 'tool-calls') status = spent() >= task.max_tokens ? 'token_cap' : 'step_cap';
    return result.text;
  };

  const maxRetries = task.review?.max_retries ?? 0;
  const maxCycles = task.review && maxRetries > 0 ? maxRetries + 1 : 0;
  let verdict: AgentResult['review']['verdict'] = 'not_reviewed';
  let cycles = 0;
  let feedback: string | undefined;
  const outputsLine = task.outputs.length ? `\n\nWrite these files: ${task.outputs.join(', ')}.` : '';

  try {
    for (let attempt = 0; ; attempt += 1) {
      const request = `${task.task}${outputsLine}${feedback ? `\n\nA reviewer rejected the previous attempt. Address this feedback:\n${feedback}` : ''}`;
      finalText = await pass(attempt === 0 ? 'skill' : `skill_retry_${attempt}`, `${task.skill.body}\n\n${RULES}`, [{ role: 'user', content: request }], true);
      if (status !== 'completed' || maxCycles === 0) break;
      cycles += 1;
      const cycleStarted = Date.now();
      const evidence = await reviewEvidence(task, paths.workspace, tools);
      const answer = await pass(`review_${cycles}`, task.review!.body, [{ role: 'user', content: `Task:\n${task.task}\n\nResult:\n${evidence}\n\nAnswer APPROVED or REJECTED first, then your feedback.` }], false);
      verdict = reviewVerdict(answer);
      feedback = reviewFeedback(answer);
      const cycle: ReviewCycle = {
        cycle: cycles, max_cycles: maxCycles, verdict, feedback: redactSecrets(feedback), skill: task.skill.name,
        elapsed_seconds: Math.round((Date.now() - cycleStarted) / 100) / 10, timestamp: new Date().toISOString(),
      };
      const cyclePath = workspacePath(paths.workspace, `.service/${task.step}/review_cycle_${cycles}.json`);
      await mkdir(dirname(cyclePath), { recursive: true });
      await writeFile(cyclePath, `${JSON.stringify(cycle, null, 2)}\n`);
      if (verdict === 'APPROVED' || cycles >= maxCycles || spent() >= task.max_tokens) break;
    }
  } catch (error) {
    status = 'failed';
    finalText = redactSecrets(error instanceof Error ? error.message : String(error)).slice(0, 2000);
  }

  const outputsMissing: string[] = [];
  for (const output of task.outputs) if (!(await exists(workspacePath(paths.workspace, output)))) outputsMissing.push(output);
  return {
    status,
    ...(status !== 'completed' ? { message: status === 'failed' ? finalText : `stopped at the ${status === 'step_cap' ? `step cap (${task.max_steps})` : `token cap (${task.max_tokens})`}` } : {}),
    steps, tool_calls: toolCalls, usage, outputs_missing: outputsMissing, review: { verdict, cycles },
    final_text: redactSecrets(finalText).slice(0, 4000), first_tool_call_ms: firstToolCallMs,
  };
}

/** What the reviewer sees: the diff and the requested outputs, bounded. */
async function reviewEvidence(task: AgentTask, workspace: string, tools: ToolSet): Promise<string> {
  const diff = String(await (tools.git_diff!.execute as (i: unknown, o: unknown) => Promise<unknown>)({}, {}));
  const outputs: string[] = [];
  for (const output of task.outputs) {
    const text = await readFile(workspacePath(workspace, output), 'utf8').catch(() => '(missing)');
    outputs.push(`--- ${output}\n${text.slice(0, 8000)}`);
  }
  return `${diff.slice(0, 16_000)}\n${outputs.join('\n')}`;
}
