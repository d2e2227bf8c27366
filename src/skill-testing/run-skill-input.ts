import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateText, stepCountIs, type LanguageModel, type TelemetrySettings } from 'ai';
import { redactSecrets, redactValue } from '../redaction/redact-secrets';
import type { Skill } from '../skill-loading/load-skill';
import { filesystemTools } from './filesystem-tools';
import type { RepositoryFolder } from './repository-folders';
import { buildSkillPrompt } from './skill-prompt';
import type { SkillInput } from './skill-input';

export const DEFAULT_MAX_STEPS = 30;

export interface TraceToolCall {
  tool: string;
  input: unknown;
  output: string;
}

export interface TraceStep {
  step: number;
  latency_seconds: number;
  finish_reason: string;
  input_tokens: number;
  output_tokens: number;
  text: string;
  tool_calls: TraceToolCall[];
}

export interface SkillRunResponse {
  schema_version: '1.0';
  ticket_key: string;
  skill: string;
  model: string;
  /** completed, step_limit (the model still wanted tools at the step limit) or failed (the error is in `error`). */
  status: 'completed' | 'step_limit' | 'failed';
  final_text: string;
  generated_files: string[];
  usage: { input_tokens: number; output_tokens: number };
  latency_seconds: number;
  steps: number;
  tool_calls: number;
  error?: string;
}

export interface RunSkillInputOptions {
  skill: Skill;
  input: SkillInput;
  inputFile: string;
  repositories: readonly RepositoryFolder[];
  outputDir: string;
  model: LanguageModel;
  modelLabel: string;
  maxOutputTokens: number;
  project?: string;
  references?: string;
  maxSteps?: number;
  /** OpenTelemetry settings of the AI SDK (tracing, when TRACING_ENABLED). */
  telemetry?: TelemetrySettings;
}

const CLIP = 4000;

function clip(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return redactSecrets(text.length > CLIP ? `${text.slice(0, CLIP)}...` : text);
}

/**
 * Runs one input through a skill offline: SKILL.md is the system prompt, the input the user message, the filesystem
 * tools the only way to the repositories, and the model the only thing on the network. Writes the generated files,
 * `response.json` (what came out) and `trace.json` (every model request with its tool calls, tokens and latency,
 * redacted) into `outputDir`. A failed model call is recorded, not thrown: a dataset run goes on with the next input.
 */
export async function runSkillInput(options: RunSkillInputOptions): Promise<SkillRunResponse> {
  await mkdir(options.outputDir, { recursive: true });
  const written: string[] = [];
  const tools = filesystemTools({ repositories: options.repositories, outputDir: options.outputDir, written });
  const prompt = buildSkillPrompt({ input: options.input, repositories: options.repositories, project: options.project, references: options.references });
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const steps: TraceStep[] = [];
  const started = performance.now();
  const startedAt = new Date().toISOString();
  let stepStarted = started;
  let status: SkillRunResponse['status'] = 'completed';
  let finalText = '';
  let error: string | undefined;

  try {
    const result = await generateText({
      model: options.model,
      system: options.skill.body,
      prompt,
      tools,
      stopWhen: stepCountIs(maxSteps),
      maxOutputTokens: options.maxOutputTokens,
      maxRetries: 1,
      ...(options.telemetry ? { experimental_telemetry: options.telemetry } : {}),
      experimental_onStepStart: () => {
        stepStarted = performance.now();
      },
      onStepFinish: (step) => {
        steps.push({
          step: steps.length + 1,
          latency_seconds: Math.round(performance.now() - stepStarted) / 1000,
          finish_reason: step.finishReason,
          input_tokens: step.usage.inputTokens ?? 0,
          output_tokens: step.usage.outputTokens ?? 0,
          text: clip(step.text),
          tool_calls: step.toolCalls.map((call) => ({
            tool: call.toolName,
            input: redactValue(call.input),
            output: clip(step.toolResults.find((r) => r.toolCallId === call.toolCallId)?.output ?? '(no result)'),
          })),
        });
      },
    });
    finalText = result.text;
    if (result.finishReason === 'tool-calls') status = 'step_limit';
  } catch (caught) {
    status = 'failed';
    error = redactSecrets(caught instanceof Error ? caught.message : String(caught)).slice(0, 2000);
  }

  const latencySeconds = Math.round(performance.now() - started) / 1000;
  const usage = steps.reduce((sum, s) => ({ input_tokens: sum.input_tokens + s.input_tokens, output_tokens: sum.output_tokens + s.output_tokens }), { input_tokens: 0, output_tokens: 0 });
  const response: SkillRunResponse = {
    schema_version: '1.0',
    ticket_key: options.input.ticket_key,
    skill: options.skill.name,
    model: options.modelLabel,
    status,
    final_text: redactSecrets(finalText),
    generated_files: written,
    usage,
    latency_seconds: latencySeconds,
    steps: steps.length,
    tool_calls: steps.reduce((sum, s) => sum + s.tool_calls.length, 0),
    ...(error ? { error } : {}),
  };
  const trace = {
    schema_version: '1.0',
    skill: { name: options.skill.name, path: options.skill.path, scope: options.skill.scope },
    input_file: options.inputFile,
    model: options.modelLabel,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
    max_steps: maxSteps,
    repositories: options.repositories,
    system_prompt_chars: options.skill.body.length,
    user_prompt: redactSecrets(prompt),
    steps,
    status,
    ...(error ? { error } : {}),
  };
  await writeFile(join(options.outputDir, 'response.json'), `${JSON.stringify(response, null, 2)}\n`);
  await writeFile(join(options.outputDir, 'trace.json'), `${JSON.stringify(trace, null, 2)}\n`);
  return response;
}
