import type { StationInput } from '../../../workflows/runtime/station-types';
import type { RcaReport } from './rca-report';
import { FIX_LABEL_PREFIX } from '../../../workflows/vocabulary/labels';

/**
 * What the stations of the bug and task-takeover graphs leave for each other in `outputs` (their `data`), and the
 * readers later stations use. One place, so a station never guesses another's shape.
 */

/** triage_check (both graphs). `missing` are the checklist items not found, in checklist order. */
export interface TriageData {
  verdict: 'complete' | 'incomplete';
  missing: string[];
  /** The missing items that were asked for in a comment (the same set is never asked twice in a row). */
  asked: string[] | null;
}

/** analyze_bug: the validated RCA, where it was made, and which round of reflection it answers. */
export interface AnalysisData {
  rca: RcaReport;
  repository: string;
  /** Repositories of the project the analysis did not run in (named to the agent only). */
  other_repositories: string[];
  /** 1 when the first `.service/rca.json` fitted the schema, 2 when the retry with the errors was needed. */
  attempts: number;
}

/**
 * reflect_rca: a critique sends the analysis back (outcome `critique`, `sent_back` true) in rounds 1 and 2; a critique
 * in round 3 goes on (outcome `done`, `converged` false). The next reflection is round `round + 1` only after a
 * send-back; after anything else (a `!` at the gate) it starts at 1.
 */
export interface ReflectionData {
  verdict: 'valid' | 'critique';
  critique: string | null;
  round: number;
  sent_back: boolean;
  converged: boolean;
  /** How many fix options the posted RCA offers (`>option N` is valid for 1..option_count); 0 while sent back. */
  option_count: number;
}

/** plan_bug_fix: the chosen option (1-based), the repositories the plan tags, the release note for the summary. */
export interface FixPlanData {
  option: number;
  repositories: string[];
  unknown_repositories: string[];
  release_note: { component: string; fix: string; root_cause: string; impact: string };
}

/** decompose_plan: one Task per repository (key by repository); `repositories` drives the task router. */
export interface DecompositionData {
  repositories: string[];
  /** `repo:` tags of the plan that name no configured repository (reported, never cloned). */
  unknown_repositories: string[];
}

/** generate_plan (takeover): the repositories the plan tags; `repositories` drives the task router. */
export interface TakeoverPlanData {
  repositories: string[];
  unknown_repositories: string[];
}

/** run_qualitative_review: the verdict and, at the cap, that the pull request opens with a warning. */
export interface QualitativeReviewData {
  verdict: 'passed' | 'changes_needed';
  repository: string;
  findings: Array<{ file?: string; problem: string; suggestion?: string }>;
}

function output<T>(input: Pick<StationInput, 'outputs'>, station: string): T | undefined {
  const value = input.outputs[station];
  return value && typeof value === 'object' ? (value as T) : undefined;
}

export const triageOf = (input: Pick<StationInput, 'outputs'>) => output<TriageData>(input, 'triage_check');
export const analysisOf = (input: Pick<StationInput, 'outputs'>) => output<AnalysisData>(input, 'analyze_bug');
export const reflectionOf = (input: Pick<StationInput, 'outputs'>) => output<ReflectionData>(input, 'reflect_rca');
export const fixPlanOf = (input: Pick<StationInput, 'outputs'>) => output<FixPlanData>(input, 'plan_bug_fix');
export const takeoverPlanOf = (input: Pick<StationInput, 'outputs'>) => output<TakeoverPlanData>(input, 'generate_plan');
export const qualitativeReviewOf = (input: Pick<StationInput, 'outputs'>) => output<QualitativeReviewData>(input, 'run_qualitative_review');

/** Artifact names: the RCA comment's Markdown (shown at rca_option_gate), the bug's fix plan, the takeover's plan. */
export const RCA_ARTIFACT = 'rca';
export const FIX_PLAN_ARTIFACT = 'fix_plan';
export const TAKEOVER_PLAN_ARTIFACT = 'plan';

/** The Task decompose_plan creates for one repository is found again by this label after a crash. */
export function fixTaskIdentityLabel(bugKey: string, repository: string): string {
  return `${FIX_LABEL_PREFIX}${bugKey.toLowerCase()}:${repository.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`.slice(0, 255);
}
