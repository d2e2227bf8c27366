import type { Client, Connection } from '@temporalio/client';
import type { DefinitionSummary } from '../../workflows/definition-registry-state';
import { DefinitionRegistry, type PublishOutcome } from './definition-registry';

/** What the gateway and the CLI ask about definitions (DESIGN 6): the registry. */
export interface DefinitionsPort {
  list(): Promise<DefinitionSummary[]>;
  publish(input: unknown, publishedBy: string): Promise<PublishOutcome>;
}

export class TemporalDefinitions implements DefinitionsPort {
  readonly registry: DefinitionRegistry;

  constructor(client: Client, connection: Connection, taskQueue: string) {
    this.registry = new DefinitionRegistry(client, connection, taskQueue);
  }

  list(): Promise<DefinitionSummary[]> {
    return this.registry.list();
  }

  publish(input: unknown, publishedBy: string): Promise<PublishOutcome> {
    return this.registry.publish(input, publishedBy);
  }
}
