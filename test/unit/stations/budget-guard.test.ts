import { describe, expect, it } from 'vitest';
import { createBudgetGuard, currentBudgetMeter } from '../../../activities/stations/budget-guard';
import { stationFailureDetails } from '../../../activities/stations/station-failure';
import type { StationInput, StationResult } from '../../../workflows/runtime/station-types';

const input = (spend?: StationInput['spend']): StationInput => ({
  ticket_key: 'P-1', project_key: 'P', issue_type: 'Feature', workflow_kind: 'feature', run_id: 'r', node: 'generate_prd', station: 'generate_prd',
  visit: 1, artifacts: {}, outputs: {}, token_budget: null, ...(spend ? { spend } : {}),
});

async function failureOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return stationFailureDetails(error);
  }
  throw new Error('expected the station to fail');
}

describe('the budget guard around a station', () => {
  it('reads the project property at the first model call, refuses a call that does not fit, and charges what was spent', async () => {
    const reads: string[] = [];
    const spent: Array<[string, number]> = [];
    const guard = createBudgetGuard({
      defaults: { ticket: null, stage: null, stages: {} },
      properties: { getProjectProperty: async (project, key) => { reads.push(`${project}:${key}`); return { stages: { generate_prd: 100 } }; } },
      onSpent: (stage, tokens) => spent.push([stage, tokens]),
    });
    let calls = 0;
    const station = guard('generate_prd', async (): Promise<StationResult> => {
      const meter = currentBudgetMeter()!;
      await meter.allowance(30);
      calls += 1;
      meter.record(50);
      await meter.allowance(41); // 60 spent + 41 > 100: refused before the second call
      calls += 1;
      return { outcome: 'done' };
    });
    const details = await failureOf(station(input({ ticket: 10, stages: { generate_prd: 10 } })));
    expect(calls).toBe(1);
    expect(details).toMatchObject({ code: 'budget_exhausted', usage: { input_tokens: 50, output_tokens: 0 } });
    expect(details!.message).toContain("generate_prd stage's token budget of 100 would be exceeded");
    expect(details!.message).toContain('60 tokens in total');
    expect(reads).toEqual(['P:service.token_budget']);
    expect(spent).toEqual([['generate_prd', 50]]);
  });

  it('reports how much of its budgets the ticket has used after an attempt that spent tokens, and nothing otherwise', async () => {
    const uses: unknown[] = [];
    const guard = createBudgetGuard({ defaults: { ticket: 1000, stage: 200, stages: {} }, onBudgetUse: (use, attempt) => uses.push([use, attempt]) });
    const spending = guard('generate_prd', async () => {
      const meter = currentBudgetMeter()!;
      await meter.allowance(10);
      meter.record(60);
      return { outcome: 'done' };
    });
    await spending(input({ ticket: 800, stages: { generate_prd: 100 } }));
    expect(uses).toEqual([[{ scope: 'stage', ratio: 0.8 }, { ticket_key: 'P-1', station: 'generate_prd' }], [{ scope: 'ticket', ratio: 0.86 }, { ticket_key: 'P-1', station: 'generate_prd' }]]);
    uses.length = 0;
    await guard('create_pr', async () => ({ outcome: 'opened' }))(input({ ticket: 990, stages: {} }));
    expect(uses).toEqual([]);
  });

  it('makes no tracker request for a station that calls no model, and reports an invalid property as such', async () => {
    let reads = 0;
    const guard = createBudgetGuard({ defaults: { ticket: 5, stage: null, stages: {} }, properties: { getProjectProperty: async () => { reads += 1; return { ticket: 'many' }; } } });
    expect(await guard('create_pr', async () => ({ outcome: 'opened' }))(input())).toEqual({ outcome: 'opened' });
    expect(reads).toBe(0);
    const details = await failureOf(guard('generate_prd', async () => { await currentBudgetMeter()!.allowance(1); return { outcome: 'x' }; })(input()));
    expect(details).toMatchObject({ code: 'invalid_budget' });
  });
});
