import type { EvalCriterion } from './eval-criteria';

export type Score = 0 | 1 | 2;
export type Grade = 'A' | 'B' | 'C' | 'D';

export interface ScoredCriterion {
  id: string;
  weight: EvalCriterion['weight'];
  score: Score;
}

export interface Verdict {
  /** Weighted score as a percentage of the maximum (critical criteria count twice), one decimal. */
  percentage: number;
  grade: Grade;
  passed: boolean;
  /** Criteria scored 2 (fully met) over all criteria. */
  passedShare: number;
  /** Critical criteria scored 0. */
  criticalFailures: string[];
}

const WEIGHT = { critical: 2, important: 1 } as const;

/**
 * The grade of a percentage (REFERENCE "Skills and evaluation"): A from 90 %, B from 75 %, both only without a
 * critical failure (otherwise at most C), C from 60 %, else D.
 */
export function gradeOf(percentage: number, criticalFailure: boolean): Grade {
  if (!criticalFailure && percentage >= 90) return 'A';
  if (!criticalFailure && percentage >= 75) return 'B';
  if (percentage >= 60) return 'C';
  return 'D';
}

/**
 * Pass or fail for one judged output: no critical failure (unless fail_on_critical is false) and at least
 * `passThreshold` of the criteria fully met (score 2).
 */
export function verdictOf(scores: readonly ScoredCriterion[], options: { passThreshold: number; failOnCritical: boolean }): Verdict {
  const max = scores.reduce((sum, s) => sum + 2 * WEIGHT[s.weight], 0);
  const got = scores.reduce((sum, s) => sum + s.score * WEIGHT[s.weight], 0);
  const percentage = max === 0 ? 0 : Math.round((got / max) * 1000) / 10;
  const criticalFailures = scores.filter((s) => s.weight === 'critical' && s.score === 0).map((s) => s.id);
  const passedShare = scores.length === 0 ? 0 : scores.filter((s) => s.score === 2).length / scores.length;
  const blockedByCritical = options.failOnCritical && criticalFailures.length > 0;
  return {
    percentage,
    grade: gradeOf(percentage, criticalFailures.length > 0),
    passed: !blockedByCritical && scores.length > 0 && passedShare >= options.passThreshold - 1e-9,
    passedShare,
    criticalFailures,
  };
}
