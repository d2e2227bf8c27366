import { ApplicationFailure, condition, patched, setHandler } from '@temporalio/workflow';
import { applyMigration, decideMigration, type MigrationAnalysis } from './migration-compatibility';
import { migrateDefinitionUpdate } from './migration-messages';
import type { TicketState } from '../runtime/ticket-state';
import { appendTimeline } from '../read-model/timeline';

/** Marks the histories in which a run swapped its pinned definition. */
export const DEFINITION_MIGRATION_PATCH = 'definition-migration';

export interface MigrationHooks {
  /** The main loop waits for a command and runs nothing: a swap cannot cut into a station or a gate's writes. */
  isIdle: () => boolean;
  now: () => string;
  /**
   * Called after a swap: the interpreter reads the new definition from state.definition from now on, and the ticket
   * moves where the analysis maps it (`step`, event `migrated`).
   */
  onApplied: (analysis: MigrationAnalysis) => void;
}

/**
 * The operator's migration (DESIGN 6) as an Update on the ticket workflow: a dry run records the analysis; an applied,
 * eligible one swaps the pinned definition once the run is idle. Either way the decision is the execution view's
 * `migration` and an operator action on the timeline. A run without a pinned definition, or a request for another
 * definition's revision, is refused by the validator before anything is written.
 */
export function registerMigrationUpdate(state: TicketState, hooks: MigrationHooks): void {
  setHandler(migrateDefinitionUpdate, async (request) => {
    // Checked again after each wake: the main loop may have woken in the same activation and be working again.
    while (request.apply && !hooks.isIdle()) await condition(hooks.isIdle);
    const { decision, analysis } = decideMigration(state, request, hooks.now());
    if (decision.applied) {
      patched(DEFINITION_MIGRATION_PATCH);
      applyMigration(state, request.to, analysis);
      hooks.onApplied(analysis);
    }
    state.migration = decision;
    const move = `${decision.from.name} r${decision.from.revision} → r${decision.to.revision}`;
    appendTimeline(state.timeline, {
      kind: 'operator_action', occurred_at: decision.decided_at,
      status: decision.applied ? 'migration_applied' : decision.eligible ? 'migration_eligible' : 'migration_refused',
      summary: decision.applied
        ? `Migrated ${move}: now at ${decision.target_node}`
        : decision.eligible
          ? `Migration ${move} is eligible (dry run; ${decision.current_node} → ${decision.target_node})`
          : `Migration ${move} ${decision.dry_run ? 'is not eligible' : 'refused'}: ${decision.incompatibilities.join('; ')}`,
      details: { ...decision },
    });
    return decision;
  }, {
    validator: (request) => {
      if (!state.definition) throw ApplicationFailure.nonRetryable('this ticket runs no pinned definition (it was started by the v0.1 build); it cannot be migrated', 'MigrationRefused');
      if (request.to?.name !== state.definition.name || !request.to.body) {
        throw ApplicationFailure.nonRetryable(`the ticket runs ${state.definition.name}; r${request.to?.revision} of ${request.to?.name} is not one of its revisions`, 'MigrationRefused');
      }
    },
  });
}
