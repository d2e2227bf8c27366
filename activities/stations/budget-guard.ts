import { AsyncLocalStorage } from 'node:async_hooks';
import { ApplicationFailure } from '@temporalio/common';
import {
  addSpend, BUDGET_EXHAUSTED, BUDGET_RECOVERY, BudgetSettingsError, budgetExhaustedMessage, budgetUse, decideBudget, projectLimits,
  TOKEN_BUDGET_PROPERTY, type BudgetLimits, type BudgetUse, type Spend,
} from '../../src/budgets/token-budget';
import type { ProjectPropertiesPort } from '../../src/config/project-properties-port';
import { STATION_FAILURE_TYPE, type StationActivity, type StationFailureDetails, type StationInput } from '../../workflows/runtime/station-types';
import { stationFailure } from './station-failure';

/**
 * The budget check in front of every model call of a station (host calls in runModelStep, container calls through
 * the model proxy). The workflow tells the station what the ticket spent so far (`input.spend`); the meter adds
 * what this attempt spends, reads the limits once per attempt (environment defaults, the project's
 * `service.token_budget` read fresh, so raising it and adding service:retry resumes), and refuses a call that would
 * cross a budget before it is made: the station fails with `budget_exhausted` and the ticket blocks.
 */
export class BudgetMeter {
  private limits?: Promise<BudgetLimits>;
  /** The limits once read (by the first allowance); undefined while no call was checked. */
  private loaded?: BudgetLimits;
  /** Tokens spent by this attempt so far (input plus output). */
  spentHere = 0;

  constructor(readonly stage: string, private readonly before: Spend, private readonly load: () => Promise<BudgetLimits>) {}

  spend(): Spend {
    return addSpend(this.before, this.stage, this.spentHere);
  }

  /** Tokens the next call may spend (null: no limit); throws the budget failure when a call of `estimate` does not fit. */
  async allowance(estimate: number): Promise<number | null> {
    this.limits ??= this.load();
    const limits = await this.limits;
    this.loaded = limits;
    const spend = this.spend();
    const decision = decideBudget(limits, spend, this.stage, estimate);
    if (!decision.ok) throw stationFailure({ code: BUDGET_EXHAUSTED, message: budgetExhaustedMessage(decision, spend, this.stage, limits), recovery: BUDGET_RECOVERY });
    return decision.remaining;
  }

  record(tokens: number): void {
    this.spentHere += Math.max(0, tokens);
  }

  /** How much of each of its budgets the ticket has used after this attempt; empty when no call was checked. */
  use(): BudgetUse[] {
    return this.loaded ? budgetUse(this.loaded, this.spend(), this.stage) : [];
  }
}

const meters = new AsyncLocalStorage<BudgetMeter>();

/** The meter of the station attempt this code runs in; undefined outside one (tools, unit tests). */
export function currentBudgetMeter(): BudgetMeter | undefined {
  return meters.getStore();
}

export interface BudgetGuardDeps {
  defaults: BudgetLimits;
  properties?: Pick<ProjectPropertiesPort, 'getProjectProperty'>;
  /** Called once per attempt with what it spent (service_tokens_spent_total{stage}). */
  onSpent?: (stage: string, tokens: number) => void;
  /**
   * Called once per attempt that spent tokens, for each budget that applies to it, with the share of that budget the
   * ticket has used (service_token_budget_used_ratio{scope}) and the ticket, so a nearly spent budget can be logged.
   */
  onBudgetUse?: (use: BudgetUse, attempt: { ticket_key: string; station: string }) => void;
}

/** A station failure that spent tokens says how many, so the workflow counts them although the station failed. */
function withUsage(error: unknown, tokens: number): unknown {
  if (tokens === 0 || !(error instanceof ApplicationFailure) || error.type !== STATION_FAILURE_TYPE) return error;
  const details = (error.details?.[0] ?? {}) as StationFailureDetails;
  if (details.usage) return error;
  return ApplicationFailure.create({
    type: STATION_FAILURE_TYPE, message: error.message, nonRetryable: true,
    details: [{ ...details, usage: { input_tokens: tokens, output_tokens: 0 } }],
  });
}

export function createBudgetGuard(deps: BudgetGuardDeps) {
  return (station: string, run: StationActivity): StationActivity => async (input: StationInput) => {
    const load = async (): Promise<BudgetLimits> => {
      const property = deps.properties ? await deps.properties.getProjectProperty(input.project_key, TOKEN_BUDGET_PROPERTY) : undefined;
      try {
        return projectLimits(deps.defaults, property, input.project_key);
      } catch (error) {
        if (!(error instanceof BudgetSettingsError)) throw error;
        throw stationFailure({ code: 'invalid_budget', message: error.message, recovery: `correct ${TOKEN_BUDGET_PROPERTY}, then add service:retry` });
      }
    };
    const meter = new BudgetMeter(station, input.spend ?? { ticket: 0, stages: {} }, load);
    try {
      const result = await meters.run(meter, () => run(input));
      // A station that did not report its usage is charged what its calls reported to the meter.
      if (!result.usage && meter.spentHere > 0) return { ...result, usage: { input_tokens: meter.spentHere, output_tokens: 0 } };
      return result;
    } catch (error) {
      throw withUsage(error, meter.spentHere);
    } finally {
      if (meter.spentHere > 0) {
        deps.onSpent?.(station, meter.spentHere);
        for (const use of meter.use()) deps.onBudgetUse?.(use, { ticket_key: input.ticket_key, station });
      }
    }
  };
}
