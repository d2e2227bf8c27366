import { ApplicationFailure, type Client, type Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import type { DefinitionSummary } from '../../workflows/registry/definition-registry-state';
import { executionQuery, ticketWorkflowId } from '../../workflows/messages';
import { migrateDefinitionUpdate, type MigrationDecision } from '../../workflows/registry/migration-messages';
import { DefinitionRegistry, isNotFound, type PublishOutcome } from './definition-registry';
import { TemporalUnavailableError } from './temporal-unavailable-error';
import { movePinToCurrentVersion, type VersioningMove } from './versioning-override';

export interface MigrationAsk {
  to_revision: number;
  mapping: Record<string, string>;
  apply: boolean;
  requested_by: string;
}

export type MigrationOutcome =
  /** `versioning`: where an applied migration moved the run's worker-build pin (null when nothing was applied). */
  | { outcome: 'decided'; decision: MigrationDecision; versioning: VersioningMove | null }
  | { outcome: 'ticket_not_found' | 'revision_not_found'; message: string }
  | { outcome: 'refused'; message: string };

/** What the gateway and the CLI ask about definitions (DESIGN 6): the registry, and migrations of running tickets. */
export interface DefinitionsPort {
  list(): Promise<DefinitionSummary[]>;
  publish(input: unknown, publishedBy: string): Promise<PublishOutcome>;
  migrate(ticketKey: string, ask: MigrationAsk): Promise<MigrationOutcome>;
}

export class TemporalDefinitions implements DefinitionsPort {
  readonly registry: DefinitionRegistry;

  constructor(private readonly client: Client, private readonly connection: Connection, taskQueue: string, private readonly deadlineMs = 20_000) {
    this.registry = new DefinitionRegistry(client, connection, taskQueue);
  }

  list(): Promise<DefinitionSummary[]> {
    return this.registry.list();
  }

  publish(input: unknown, publishedBy: string): Promise<PublishOutcome> {
    return this.registry.publish(input, publishedBy);
  }

  /**
   * A migration is decided by the ticket's own workflow (an Update): here only the target revision is looked up, in
   * the registry or among the built-ins, by the name of the definition the ticket runs.
   */
  async migrate(ticketKey: string, ask: MigrationAsk): Promise<MigrationOutcome> {
    const handle = this.client.workflow.getHandle(ticketWorkflowId(ticketKey));
    const bounded = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
      try {
        return await this.connection.withDeadline(Date.now() + this.deadlineMs, fn);
      } catch (error) {
        if (isNotFound(error) || error instanceof WorkflowUpdateFailedError) throw error;
        throw new TemporalUnavailableError(`Temporal did not answer ${what}: ${(error as Error).message}`, { cause: error });
      }
    };
    try {
      const view = await bounded(`the execution query of ${ticketKey}`, () => handle.query(executionQuery));
      if (!view.definition) return { outcome: 'refused', message: `${ticketKey} runs no pinned definition (it was started by the v0.1 build); it cannot be migrated` };
      if (view.status === 'completed') return { outcome: 'refused', message: `${ticketKey} completed at ${view.current_position}; there is nothing to migrate` };
      const { name } = view.definition;
      const to = await this.registry.get(name, ask.to_revision);
      if (!to) {
        const known = (await this.registry.list()).filter((d) => d.name === name).map((d) => `r${d.revision}`);
        return { outcome: 'revision_not_found', message: `${name} has no revision ${ask.to_revision} (known: ${known.join(', ')})` };
      }
      const decision = await bounded(`the migration of ${ticketKey}`, () => handle.executeUpdate(migrateDefinitionUpdate, {
        args: [{ to, mapping: ask.mapping, apply: ask.apply, requested_by: ask.requested_by }],
      }));
      if (!decision.applied) return { outcome: 'decided', decision, versioning: null };
      const versioning = await movePinToCurrentVersion(this.client, this.client.options.namespace, ticketWorkflowId(ticketKey))
        .catch((error: Error): VersioningMove => ({ moved: false, reason: `the migration is applied, but the run's worker-build pin could not be moved: ${error.message}` }));
      return { outcome: 'decided', decision, versioning };
    } catch (error) {
      if (isNotFound(error)) return { outcome: 'ticket_not_found', message: `no workflow for ticket ${ticketKey}` };
      if (error instanceof WorkflowUpdateFailedError) {
        const cause = error.cause;
        if (cause instanceof ApplicationFailure && cause.type === 'MigrationRefused') return { outcome: 'refused', message: cause.message };
        // A run of the v0.1 build has no migration handler at all.
        return { outcome: 'refused', message: `${ticketKey} cannot be migrated: ${(cause as Error | undefined)?.message ?? error.message}` };
      }
      throw error;
    }
  }
}
