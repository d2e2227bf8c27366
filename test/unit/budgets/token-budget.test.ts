import { describe, expect, it } from 'vitest';
import {
  addSpend, budgetDefaultsFromEnv, BudgetSettingsError, budgetExhaustedMessage, budgetUse, decideBudget, estimateTokens, projectLimits, stageLimit,
} from '../../../src/budgets/token-budget';

const none = { ticket: null, stage: null, stages: {} };

describe('token budgets', () => {
  it('reads defaults from the environment; unset means no limit; nonsense is refused with the variable named', () => {
    expect(budgetDefaultsFromEnv({})).toEqual(none);
    expect(budgetDefaultsFromEnv({ SERVICE_TOKEN_BUDGET_TICKET: '500000', SERVICE_TOKEN_BUDGET_STAGE: ' 1000 ' })).toEqual({ ticket: 500000, stage: 1000, stages: {} });
    expect(() => budgetDefaultsFromEnv({ SERVICE_TOKEN_BUDGET_STAGE: 'lots' })).toThrow(/SERVICE_TOKEN_BUDGET_STAGE must be a whole number/);
  });

  it('lets a project override each field it sets, and a stage by name', () => {
    const defaults = { ticket: 100, stage: 50, stages: {} };
    const limits = projectLimits(defaults, { stages: { generate_prd: 10 } }, 'P');
    expect(limits).toEqual({ ticket: 100, stage: 50, stages: { generate_prd: 10 } });
    expect(stageLimit(limits, 'generate_prd')).toBe(10);
    expect(stageLimit(limits, 'generate_spec')).toBe(50);
    expect(projectLimits(defaults, { ticket: null }, 'P').ticket).toBeNull();
    expect(projectLimits(defaults, undefined, 'P')).toBe(defaults);
    expect(() => projectLimits(defaults, { tickets: 5 }, 'P')).toThrow(BudgetSettingsError);
    expect(() => projectLimits(defaults, [1], 'P')).toThrow(/service.token_budget of project P must be a JSON object/);
    expect(() => projectLimits(defaults, { stage: -1 }, 'P')).toThrow(/stage must be a whole number/);
  });

  it('refuses a call that would cross the stage budget before it is made, and allows one that fits', () => {
    const limits = { ticket: 1000, stage: null, stages: { generate_prd: 100 } };
    const spend = { ticket: 300, stages: { generate_prd: 60, generate_spec: 240 } };
    expect(decideBudget(limits, spend, 'generate_prd', 30)).toEqual({ ok: true, remaining: 40 });
    expect(decideBudget(limits, spend, 'generate_prd', 41)).toEqual({ ok: false, scope: 'stage', limit: 100, spent: 60, needed: 41 });
    expect(decideBudget(limits, spend, 'generate_spec', 0)).toEqual({ ok: true, remaining: 700 });
    expect(decideBudget(limits, { ticket: 1000, stages: {} }, 'generate_spec', 0)).toMatchObject({ ok: false, scope: 'ticket' });
    expect(decideBudget(none, spend, 'generate_prd', 10 ** 9)).toEqual({ ok: true, remaining: null });
  });

  it('says in the message which budget, what was spent where, and that the model was not called', () => {
    const limits = { ticket: null, stage: null, stages: { generate_prd: 10 } };
    const spend = addSpend(addSpend({ ticket: 0, stages: {} }, 'triage', 7), 'generate_prd', 4);
    const decision = decideBudget(limits, spend, 'generate_prd', 20);
    if (decision.ok) throw new Error('expected a refusal');
    const message = budgetExhaustedMessage(decision, spend, 'generate_prd', limits);
    expect(message).toContain("the generate_prd stage's token budget of 10 would be exceeded");
    expect(message).toContain('next model call needs about 20 more');
    expect(message).toContain('did not call the model');
    expect(message).toContain('11 tokens in total (no ticket limit); by stage: generate_prd 4, triage 7');
  });

  it('says how much of each budget that applies the ticket has used, for the nearly-exhausted alert', () => {
    const spend = { ticket: 850, stages: { generate_prd: 90, implement: 760 } };
    // The stage's own limit wins over the default stage limit; the ticket limit applies to every stage.
    const limits = { ticket: 1000, stage: 2000, stages: { generate_prd: 100 } };
    expect(budgetUse(limits, spend, 'generate_prd')).toEqual([{ scope: 'stage', ratio: 0.9 }, { scope: 'ticket', ratio: 0.85 }]);
    expect(budgetUse(limits, spend, 'implement')).toEqual([{ scope: 'stage', ratio: 0.38 }, { scope: 'ticket', ratio: 0.85 }]);
    expect(budgetUse(none, spend, 'implement')).toEqual([]);
    // A zero limit is used up; a call that overshot its estimate shows as more than all of it.
    expect(budgetUse({ ticket: null, stage: 0, stages: {} }, spend, 'triage')).toEqual([{ scope: 'stage', ratio: 1 }]);
    expect(budgetUse({ ticket: 800, stage: null, stages: {} }, spend, 'implement')).toEqual([{ scope: 'ticket', ratio: 850 / 800 }]);
  });

  it('estimates about four characters a token', () => {
    expect(estimateTokens('abcd', 'efgh', undefined)).toBe(2);
    expect(estimateTokens('a')).toBe(1);
  });
});
