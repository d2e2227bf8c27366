import type { Runtime } from './ticket-state';

/**
 * What a ticket spent on models (issue 17: budgets), kept in the workflow's runtime: the total and the split by
 * stage (station). Stations get it in their input and check their budgets against it before every model call.
 */

export function spendOf(runtime: Runtime): { ticket: number; stages: Record<string, number> } {
  return { ticket: runtime.tokens_spent, stages: { ...(runtime.tokens_by_stage ?? {}) } };
}

/** Counts one station attempt's usage, whether it succeeded or failed after spending. */
export function countSpend(runtime: Runtime, stage: string, usage: { input_tokens: number; output_tokens: number } | undefined): void {
  if (!usage) return;
  const tokens = usage.input_tokens + usage.output_tokens;
  runtime.tokens_spent += tokens;
  const byStage = (runtime.tokens_by_stage ??= {});
  byStage[stage] = (byStage[stage] ?? 0) + tokens;
}
