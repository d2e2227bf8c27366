import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { ModelClient, ResolvedTarget } from '../models/model-client';
import { redactSecrets } from '../redaction/redact-secrets';
import type { Skill } from '../skill-loading/load-skill';
import type { Tracing } from '../tracing/start-tracing';
import type { EvalCriteria } from './eval-criteria';
import type { CaseResult, CriterionResult } from './eval-results';
import { RESERVED_OUTPUTS } from './filesystem-tools';
import { matchesAnyGlob } from './glob-match';
import { verdictOf } from './grade';
import { judgeCriterion, type NamedText } from './judge-criterion';

/** The generated files of a results folder that match the criteria's patterns (response.json and trace.json never). */
export function generatedFilesIn(folder: string, patterns: readonly string[]): string[] {
  if (!existsSync(folder)) return [];
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const rel = relative(folder, full).split('\\').join('/');
        if (!RESERVED_OUTPUTS.has(rel) && matchesAnyGlob(rel, patterns)) found.push(full);
      }
    }
  };
  walk(folder);
  return found;
}

function skillRunOf(folder: string | undefined): CaseResult['skill_run'] {
  const path = folder ? join(folder, 'response.json') : undefined;
  if (!path || !existsSync(path)) return undefined;
  try {
    const response = JSON.parse(readFileSync(path, 'utf8')) as { model?: string; status?: string; usage?: { input_tokens?: number; output_tokens?: number }; latency_seconds?: number };
    return { model: String(response.model ?? ''), status: String(response.status ?? ''), input_tokens: response.usage?.input_tokens ?? 0, output_tokens: response.usage?.output_tokens ?? 0, latency_seconds: response.latency_seconds ?? 0 };
  } catch {
    return undefined;
  }
}

export interface EvaluateCaseInput {
  id: string;
  generatedFiles: readonly string[];
  /** Where the generated files' names are shown relative to (and response.json is looked for). */
  resultsFolder?: string;
  goldFile: string;
  criteria: EvalCriteria;
  client: ModelClient;
  target: ResolvedTarget;
  judge: Skill;
  tracing?: Tracing;
}

/**
 * Judges one output criterion by criterion. Nothing to judge (no gold file, no generated file) or a judge that
 * fails makes the case an `error` with every criterion at 0: it fails, and says why, instead of stopping the batch.
 */
export async function evaluateCase(input: EvaluateCaseInput): Promise<CaseResult> {
  const { criteria } = input;
  const base = {
    id: input.id,
    generated_files: input.generatedFiles.map((f) => (input.resultsFolder ? relative(input.resultsFolder, f) : f)),
    gold_file: input.goldFile,
    skill_run: skillRunOf(input.resultsFolder),
  };
  const usage = { input_tokens: 0, output_tokens: 0 };
  let latency = 0;
  const failed = (error: string, judged: CriterionResult[] = []): CaseResult => {
    const scores = criteria.criteria.map((c) => judged.find((j) => j.id === c.id) ?? { id: c.id, name: c.name, weight: c.weight, score: 0 as const, reasoning: `not judged: ${error}`, quotes: [] });
    const verdict = verdictOf(scores, { passThreshold: criteria.pass_threshold, failOnCritical: criteria.fail_on_critical });
    return { ...base, status: 'error', error, criteria: scores, percentage: verdict.percentage, grade: verdict.grade, passed: false, critical_failures: verdict.criticalFailures, judge_usage: usage, judge_latency_seconds: latency };
  };
  if (!existsSync(input.goldFile) || !statSync(input.goldFile).isFile()) return failed(`gold standard ${input.goldFile} does not exist`);
  if (input.generatedFiles.length === 0) return failed(`no generated file matches ${criteria.generated_file_patterns.join(', ')}${input.resultsFolder ? ` in ${input.resultsFolder}` : ''}`);
  const gold: NamedText = { name: basename(input.goldFile), text: readFileSync(input.goldFile, 'utf8') };
  const generated = input.generatedFiles.map((f, i) => ({ name: base.generated_files[i]!, text: readFileSync(f, 'utf8') }));

  const judged: CriterionResult[] = [];
  for (const criterion of criteria.criteria) {
    try {
      const judge = () => judgeCriterion({ client: input.client, target: input.target, judge: input.judge, criterion, gold, generated, tracing: input.tracing });
      const judgment = input.tracing
        ? await input.tracing.span(`test-skill eval ${criteria.skill} ${criterion.id}`, { workflow_step: 'skill_eval_judge', llm_model: `${input.target.target.connection}:${input.target.target.model}`, event_source: 'test-skill', retry_count: 0, system_prompt_length: input.judge.body.length }, judge)
        : await judge();
      usage.input_tokens += judgment.usage.inputTokens;
      usage.output_tokens += judgment.usage.outputTokens;
      latency += judgment.latencySeconds;
      judged.push({ id: criterion.id, name: criterion.name, weight: criterion.weight, score: judgment.score, reasoning: redactSecrets(judgment.reasoning), quotes: judgment.quotes.map((q) => redactSecrets(q)) });
    } catch (error) {
      return failed(`the judge failed on ${criterion.id}: ${redactSecrets((error as Error).message).slice(0, 500)}`, judged);
    }
  }
  const verdict = verdictOf(judged, { passThreshold: criteria.pass_threshold, failOnCritical: criteria.fail_on_critical });
  return {
    ...base, status: 'judged', criteria: judged, percentage: verdict.percentage, grade: verdict.grade, passed: verdict.passed,
    critical_failures: verdict.criticalFailures, judge_usage: usage, judge_latency_seconds: Math.round(latency * 1000) / 1000,
  };
}
