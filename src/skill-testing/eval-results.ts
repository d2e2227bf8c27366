import type { EvalCriteria } from './eval-criteria';
import { gradeOf, type Grade, type Score } from './grade';

export interface CriterionResult {
  id: string;
  name: string;
  weight: 'critical' | 'important';
  score: Score;
  reasoning: string;
  quotes: string[];
}

/** One judged output: a dataset case, or the one file of single mode. */
export interface CaseResult {
  id: string;
  /** judged, or error (nothing to judge, or the judge failed): an error never passes. */
  status: 'judged' | 'error';
  error?: string;
  generated_files: string[];
  gold_file: string;
  criteria: CriterionResult[];
  percentage: number;
  grade: Grade;
  passed: boolean;
  critical_failures: string[];
  judge_usage: { input_tokens: number; output_tokens: number };
  judge_latency_seconds: number;
  /** From the case's response.json when `test-skill run` wrote one: what the skill itself spent. */
  skill_run?: { model: string; status: string; input_tokens: number; output_tokens: number; latency_seconds: number };
}

export interface EvalResults {
  schema_version: '1.0';
  mode: 'single' | 'batch';
  skill: string;
  judge_model: string;
  criteria_file: string;
  pass_threshold: number;
  fail_on_critical: boolean;
  generated_at: string;
  summary: {
    cases: number;
    passed: number;
    failed: number;
    mean_percentage: number;
    grade: Grade;
    /** The whole evaluation passes only when every case passed. */
    passed_all: boolean;
    critical_failures: number;
    judge_usage: { input_tokens: number; output_tokens: number };
    judge_latency_seconds: number;
  };
  cases: CaseResult[];
}

/** The summary over all cases: mean percentage, and a grade that no case's critical failure lets reach A or B. */
export function summarize(input: { mode: EvalResults['mode']; criteria: EvalCriteria; criteriaFile: string; judgeModel: string; cases: CaseResult[]; now?: Date }): EvalResults {
  const { cases, criteria } = input;
  const mean = cases.length ? Math.round((cases.reduce((s, c) => s + c.percentage, 0) / cases.length) * 10) / 10 : 0;
  const critical = cases.reduce((s, c) => s + c.critical_failures.length, 0);
  const passed = cases.filter((c) => c.passed).length;
  return {
    schema_version: '1.0',
    mode: input.mode,
    skill: criteria.skill,
    judge_model: input.judgeModel,
    criteria_file: input.criteriaFile,
    pass_threshold: criteria.pass_threshold,
    fail_on_critical: criteria.fail_on_critical,
    generated_at: (input.now ?? new Date()).toISOString(),
    summary: {
      cases: cases.length,
      passed,
      failed: cases.length - passed,
      mean_percentage: mean,
      grade: gradeOf(mean, critical > 0 || cases.some((c) => c.status === 'error')),
      passed_all: cases.length > 0 && passed === cases.length,
      critical_failures: critical,
      judge_usage: {
        input_tokens: cases.reduce((s, c) => s + c.judge_usage.input_tokens, 0),
        output_tokens: cases.reduce((s, c) => s + c.judge_usage.output_tokens, 0),
      },
      judge_latency_seconds: Math.round(cases.reduce((s, c) => s + c.judge_latency_seconds, 0) * 1000) / 1000,
    },
    cases,
  };
}

export function evalSummaryLine(results: EvalResults): string {
  const s = results.summary;
  const failedCases = results.cases.filter((c) => !c.passed).map((c) => `${c.id}${c.critical_failures.length ? ` (critical: ${c.critical_failures.join(', ')})` : c.status === 'error' ? ' (error)' : ''}`);
  return `test-skill eval: ${s.passed_all ? 'PASS' : 'FAIL'} ${s.passed}/${s.cases} passed, grade ${s.grade} (${s.mean_percentage.toFixed(1)} %) for ${results.skill}, judged by ${results.judge_model}${failedCases.length ? `; failed: ${failedCases.join(', ')}` : ''}`;
}
