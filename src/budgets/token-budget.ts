/**
 * Token budgets (issue 17, DESIGN 6 "Budgets and the kill switch"): a ticket-wide budget and a per-stage budget
 * (a stage is a station: generate_prd, implement, ...). Deployment defaults come from the environment
 * (SERVICE_TOKEN_BUDGET_TICKET, SERVICE_TOKEN_BUDGET_STAGE); a project may override them with the project property
 * `service.token_budget`, `{"ticket": 500000, "stage": 100000, "stages": {"generate_prd": 20000}}`. Pure functions:
 * the activities read the settings and ask these what to do before every model call.
 */

export const TOKEN_BUDGET_PROPERTY = 'service.token_budget';
export const TICKET_BUDGET_ENV = 'SERVICE_TOKEN_BUDGET_TICKET';
export const STAGE_BUDGET_ENV = 'SERVICE_TOKEN_BUDGET_STAGE';
export const BUDGET_EXHAUSTED = 'budget_exhausted';

/** Null means no limit. `stages` names a limit for one stage, over `stage`. */
export interface BudgetLimits {
  ticket: number | null;
  stage: number | null;
  stages: Record<string, number>;
}

/** What the ticket has spent so far (input plus output tokens), ticket-wide and by stage. */
export interface Spend {
  ticket: number;
  stages: Record<string, number>;
}

export class BudgetSettingsError extends Error {
  override readonly name = 'BudgetSettingsError';
}

function limitOf(value: unknown, where: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const n = typeof value === 'string' ? Number(value.trim()) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new BudgetSettingsError(`${where} must be a whole number of tokens (0 or more), got ${JSON.stringify(value)}`);
  return n;
}

/** The deployment defaults; unset variables mean no limit. */
export function budgetDefaultsFromEnv(env: NodeJS.ProcessEnv): BudgetLimits {
  return { ticket: limitOf(env[TICKET_BUDGET_ENV], TICKET_BUDGET_ENV), stage: limitOf(env[STAGE_BUDGET_ENV], STAGE_BUDGET_ENV), stages: {} };
}

/** The limits that apply to a project: each field of `service.token_budget` that is set replaces the default. */
export function projectLimits(defaults: BudgetLimits, property: unknown, projectKey: string): BudgetLimits {
  if (property === undefined || property === null) return defaults;
  const where = `${TOKEN_BUDGET_PROPERTY} of project ${projectKey}`;
  if (typeof property !== 'object' || Array.isArray(property)) throw new BudgetSettingsError(`${where} must be a JSON object like {"ticket": 500000, "stage": 100000, "stages": {"generate_prd": 20000}}`);
  const given = property as Record<string, unknown>;
  const unknown = Object.keys(given).filter((k) => !['ticket', 'stage', 'stages'].includes(k));
  if (unknown.length > 0) throw new BudgetSettingsError(`${where} has unknown fields ${unknown.join(', ')} (known: ticket, stage, stages)`);
  const stages: Record<string, number> = { ...defaults.stages };
  if (given.stages !== undefined) {
    if (typeof given.stages !== 'object' || given.stages === null || Array.isArray(given.stages)) throw new BudgetSettingsError(`${where}: stages must be an object of stage name to tokens`);
    for (const [stage, value] of Object.entries(given.stages)) stages[stage] = limitOf(value, `${where}: stages.${stage}`) ?? 0;
  }
  return {
    ticket: 'ticket' in given ? limitOf(given.ticket, `${where}: ticket`) : defaults.ticket,
    stage: 'stage' in given ? limitOf(given.stage, `${where}: stage`) : defaults.stage,
    stages,
  };
}

export function stageLimit(limits: BudgetLimits, stage: string): number | null {
  return Object.hasOwn(limits.stages, stage) ? limits.stages[stage]! : limits.stage;
}

export type BudgetDecision =
  /** `remaining`: the tokens the call may still spend (the smaller of both budgets); null when neither applies. */
  | { ok: true; remaining: number | null }
  | { ok: false; scope: 'ticket' | 'stage'; limit: number; spent: number; needed: number };

/**
 * Whether a model call of about `estimate` tokens (its prompt) fits both budgets, given what was spent before it.
 * A call that would cross a budget is refused before it is made, so the model is never asked.
 */
export function decideBudget(limits: BudgetLimits, spend: Spend, stage: string, estimate = 0): BudgetDecision {
  const stageSpent = spend.stages[stage] ?? 0;
  const checks: Array<{ scope: 'ticket' | 'stage'; limit: number | null; spent: number }> = [
    { scope: 'stage', limit: stageLimit(limits, stage), spent: stageSpent },
    { scope: 'ticket', limit: limits.ticket, spent: spend.ticket },
  ];
  let remaining: number | null = null;
  for (const check of checks) {
    if (check.limit === null) continue;
    const left = check.limit - check.spent;
    if (left <= 0 || estimate > left) return { ok: false, scope: check.scope, limit: check.limit, spent: check.spent, needed: estimate };
    remaining = remaining === null ? left : Math.min(remaining, left);
  }
  return { ok: true, remaining };
}

/** The share of a budget past which the worker warns and ServiceBudgetNearlyExhausted fires (its le="0.8" bucket). */
export const NEARLY_EXHAUSTED_RATIO = 0.8;

/** How much of one budget a ticket has used: spent / limit (over 1 when a call overshot its estimate). */
export interface BudgetUse {
  scope: 'ticket' | 'stage';
  ratio: number;
}

/**
 * The share of each budget that applies to `stage` the ticket has used with `spend` (none without a limit), for
 * service_token_budget_used_ratio: the alert that a ticket is close to its budget before the next call is refused.
 * A zero limit counts as used up.
 */
export function budgetUse(limits: BudgetLimits, spend: Spend, stage: string): BudgetUse[] {
  const uses: BudgetUse[] = [];
  const ratio = (spent: number, limit: number) => (limit === 0 ? 1 : spent / limit);
  const forStage = stageLimit(limits, stage);
  if (forStage !== null) uses.push({ scope: 'stage', ratio: ratio(spend.stages[stage] ?? 0, forStage) });
  if (limits.ticket !== null) uses.push({ scope: 'ticket', ratio: ratio(spend.ticket, limits.ticket) });
  return uses;
}

/** A rough token count of a prompt (about four characters a token), for the check before a call. */
export function estimateTokens(...texts: Array<string | undefined>): number {
  const chars = texts.reduce((sum, text) => sum + (text?.length ?? 0), 0);
  return Math.ceil(chars / 4);
}

/** Adds a call's usage to the spend (a new object; the old one is left as it was). */
export function addSpend(spend: Spend, stage: string, tokens: number): Spend {
  return { ticket: spend.ticket + tokens, stages: { ...spend.stages, [stage]: (spend.stages[stage] ?? 0) + tokens } };
}

/** The block message: which budget, what the call needed, and what was spent where. */
export function budgetExhaustedMessage(decision: Extract<BudgetDecision, { ok: false }>, spend: Spend, stage: string, limits: BudgetLimits): string {
  const which = decision.scope === 'stage' ? `the ${stage} stage's token budget of ${decision.limit}` : `the ticket's token budget of ${decision.limit}`;
  const why = decision.spent >= decision.limit
    ? `${decision.spent} tokens are spent`
    : `${decision.spent} are spent and the next model call needs about ${decision.needed} more`;
  const byStage = Object.entries(spend.stages).filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s} ${n}`);
  const ticketLimit = limits.ticket === null ? 'no ticket limit' : `ticket limit ${limits.ticket}`;
  return `${which} would be exceeded (${why}); ${stage} did not call the model. Spent so far: ${spend.ticket} tokens in total (${ticketLimit})${byStage.length ? `; by stage: ${byStage.join(', ')}` : ''}.`;
}

export const BUDGET_RECOVERY = `raise the budget (project property ${TOKEN_BUDGET_PROPERTY}, or ${TICKET_BUDGET_ENV} / ${STAGE_BUDGET_ENV} on the worker), then add service:retry`;
