import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { LanguageModel } from 'ai';
import type { Skill } from '../skill-loading/load-skill';
import type { Tracing } from '../tracing/start-tracing';
import { listDatasetCases } from './dataset-cases';
import { mapRepositoryFolders } from './repository-folders';
import { runSkillInput, type SkillRunResponse } from './run-skill-input';
import { loadSkillInput, type SkillInput } from './skill-input';

export interface PlannedInput {
  id: string;
  file: string;
  input: SkillInput;
  outputDir: string;
}

/**
 * Which inputs a run has and where each one's results go: `--input FILE` writes straight into `--output`; a
 * `--dataset` writes `<output>/<case>/` per case. Every input file is read and validated before the first model
 * call, so a broken case fails the run at once with its file and field rather than after an hour of answers.
 */
export function planInputs(options: { input?: string; dataset?: string; output: string }): PlannedInput[] {
  if (options.input) {
    const id = basename(options.input) === 'input.yaml' ? basename(dirname(options.input)) : basename(options.input).replace(/\.ya?ml$/i, '');
    return [{ id, file: options.input, input: loadSkillInput(options.input), outputDir: options.output }];
  }
  const cases = listDatasetCases(options.dataset!);
  const problems: string[] = [];
  const planned: PlannedInput[] = [];
  for (const entry of cases) {
    try {
      planned.push({ id: entry.id, file: entry.inputFile, input: loadSkillInput(entry.inputFile), outputDir: join(options.output, entry.id) });
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length) throw new Error(`${problems.length} of ${cases.length} inputs are invalid:\n${problems.join('\n')}`);
  return planned;
}

export interface RunSummary {
  schema_version: '1.0';
  skill: string;
  model: string;
  inputs: Array<{ id: string; status: SkillRunResponse['status']; generated_files: string[]; input_tokens: number; output_tokens: number; latency_seconds: number; error?: string }>;
  completed: number;
  failed: number;
  usage: { input_tokens: number; output_tokens: number };
  latency_seconds: number;
}

export interface RunSkillTestsOptions {
  skill: Skill;
  inputs: readonly PlannedInput[];
  repos: readonly string[];
  model: LanguageModel;
  modelLabel: string;
  maxOutputTokens: number;
  project?: string;
  referencesFile?: string;
  /** Called before each input (done = inputs finished so far) and once at the end. */
  onProgress?: (done: number, total: number, label: string) => void;
  tracing?: Tracing;
}

/** Runs every planned input in order and returns (and, for a dataset, writes) the summary of the run. */
export async function runSkillTests(options: RunSkillTestsOptions, summaryFile?: string): Promise<RunSummary> {
  const references = options.referencesFile ? readFileSync(options.referencesFile, 'utf8') : undefined;
  const rows: RunSummary['inputs'] = [];
  const total = options.inputs.length;
  for (const [index, planned] of options.inputs.entries()) {
    options.onProgress?.(index, total, planned.id);
    const run = () => runSkillInput({
      skill: options.skill, input: planned.input, inputFile: planned.file, outputDir: planned.outputDir,
      repositories: mapRepositoryFolders(planned.input.available_repos, options.repos),
      model: options.model, modelLabel: options.modelLabel, maxOutputTokens: options.maxOutputTokens,
      project: options.project, references, telemetry: options.tracing?.telemetry(`test-skill:${options.skill.name}`),
    });
    const response = options.tracing
      ? await options.tracing.span(`test-skill run ${options.skill.name}`, {
        ticket_key: planned.input.ticket_key, project_id: options.project, workflow_step: options.skill.name, llm_model: options.modelLabel,
        repo: planned.input.available_repos.join(','), event_source: 'test-skill', retry_count: 0, system_prompt_length: options.skill.body.length,
      }, run)
      : await run();
    rows.push({
      id: planned.id, status: response.status, generated_files: response.generated_files,
      input_tokens: response.usage.input_tokens, output_tokens: response.usage.output_tokens, latency_seconds: response.latency_seconds,
      ...(response.error ? { error: response.error } : {}),
    });
  }
  options.onProgress?.(total, total, 'done');
  const summary: RunSummary = {
    schema_version: '1.0',
    skill: options.skill.name,
    model: options.modelLabel,
    inputs: rows,
    completed: rows.filter((r) => r.status === 'completed').length,
    failed: rows.filter((r) => r.status !== 'completed').length,
    usage: { input_tokens: rows.reduce((s, r) => s + r.input_tokens, 0), output_tokens: rows.reduce((s, r) => s + r.output_tokens, 0) },
    latency_seconds: Math.round(rows.reduce((s, r) => s + r.latency_seconds, 0) * 1000) / 1000,
  };
  if (summaryFile) {
    await mkdir(dirname(summaryFile), { recursive: true });
    await writeFile(summaryFile, `${JSON.stringify(summary, null, 2)}\n`);
  }
  return summary;
}

/** The line a run ends with. */
export function summaryLine(summary: RunSummary): string {
  const tokens = summary.usage.input_tokens + summary.usage.output_tokens;
  const failed = summary.inputs.filter((r) => r.status !== 'completed').map((r) => `${r.id} (${r.status})`);
  return `test-skill run: ${summary.completed}/${summary.inputs.length} inputs completed with ${summary.skill} on ${summary.model}; ${tokens} tokens (${summary.usage.input_tokens} in, ${summary.usage.output_tokens} out); ${summary.latency_seconds.toFixed(1)} s${failed.length ? `; not completed: ${failed.join(', ')}` : ''}`;
}
