import { ApplicationFailure, type Client, type Connection, WorkflowNotFoundError, WorkflowUpdateFailedError, isGrpcServiceError } from '@temporalio/client';
import { BUILT_IN_DEFINITIONS } from '../../workflows/built-in-definitions';
import type { PinnedDefinition } from '../../workflows/built-in-definitions/definition-types';
import { summarize, type DefinitionSummary, type PublishedRevision, type PublishResult } from '../../workflows/registry/definition-registry-state';
import {
  DEFINITION_REGISTRY_WORKFLOW_TYPE, definitionRegistryWorkflowId, publishDefinitionUpdate, publishedDefinitionQuery, publishedRevisionsQuery, REGISTRY_LATEST_MEMO,
} from '../../workflows/registry/definition-registry-messages';
import { pinDefinition } from '../definition-rules/definition-digest';
import { validateDefinition } from '../definition-rules/validate-definition';
import { TemporalUnavailableError } from './temporal-unavailable-error';

export type PublishOutcome =
  /** `warnings`: what the validator read but deprecates (deprecatedTriggerSpellings). */
  | { outcome: 'published' | 'unchanged'; result: PublishResult; warnings: string[] }
  | { outcome: 'invalid'; problems: string[] }
  | { outcome: 'refused'; reason: string };

const GRPC_NOT_FOUND = 5;

export function isNotFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  if (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND) return true;
  const cause = (error as { cause?: unknown })?.cause;
  return cause !== undefined && cause !== error && isNotFound(cause);
}

const builtInPins = (): PinnedDefinition[] => Object.values(BUILT_IN_DEFINITIONS).map(pinDefinition);

/**
 * The definition registry as the gateway and the CLI see it (DESIGN 6): publish validates the file here (the
 * catalogue, reachability, mapped outcomes, no URLs or credentials) and computes the digest, then asks the registry
 * workflow of the task queue, whose Update validator checks the revision order. Reads of the newest revision come
 * from the registry's memo (a describe(), no worker needed), so starting a ticket never waits for a worker.
 */
export class DefinitionRegistry {
  constructor(
    private readonly client: Client,
    private readonly connection: Connection,
    private readonly taskQueue: string,
    private readonly deadlineMs = { write: 15_000, read: 10_000 },
  ) {}

  private get workflowId(): string {
    return definitionRegistryWorkflowId(this.taskQueue);
  }

  private async bounded<T>(what: string, ms: number, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.connection.withDeadline(Date.now() + ms, fn);
    } catch (error) {
      if (isNotFound(error) || error instanceof WorkflowUpdateFailedError) throw error;
      throw new TemporalUnavailableError(`Temporal did not answer ${what}: ${(error as Error).message}`, { cause: error });
    }
  }

  async publish(input: unknown, publishedBy: string): Promise<PublishOutcome> {
    const checked = validateDefinition(input);
    if (!checked.ok) return { outcome: 'invalid', problems: checked.problems };
    const definition = pinDefinition(checked.definition);
    try {
      const result = await this.bounded(`the publish of ${definition.name} r${definition.revision}`, this.deadlineMs.write, async () => {
        // The registry starts on its first publish; later publishes reach the running one.
        await this.client.workflow.start(DEFINITION_REGISTRY_WORKFLOW_TYPE, {
          workflowId: this.workflowId, taskQueue: this.taskQueue, args: [], workflowIdConflictPolicy: 'USE_EXISTING',
        });
        return this.client.workflow.getHandle(this.workflowId).executeUpdate(publishDefinitionUpdate, { args: [{ definition, published_by: publishedBy }] });
      });
      return { outcome: result.created ? 'published' : 'unchanged', result, warnings: checked.warnings };
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type === 'DefinitionRefused') {
        return { outcome: 'refused', reason: error.cause.message };
      }
      throw error;
    }
  }

  private async published(): Promise<PublishedRevision[]> {
    try {
      return await this.bounded('the registry query', this.deadlineMs.read, () => this.client.workflow.getHandle(this.workflowId).query(publishedRevisionsQuery));
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }

  /** Built-in and published revisions; `latest` marks what a new ticket of each name pins. */
  async list(): Promise<DefinitionSummary[]> {
    return summarize({ revisions: await this.published() }, builtInPins());
  }

  /** One revision of a definition: the built-in one or a published one. */
  async get(name: string, revision: number): Promise<PinnedDefinition | undefined> {
    const builtIn = builtInPins().find((d) => d.name === name && d.revision === revision);
    if (builtIn) return builtIn;
    try {
      const found = await this.bounded('the registry query', this.deadlineMs.read, () =>
        this.client.workflow.getHandle(this.workflowId).query(publishedDefinitionQuery, { name, revision }));
      return found ?? undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}

/** The newest published revision of each definition name, from the registry's memo; empty when nothing is published. */
export async function latestPublishedDefinitions(client: Client, taskQueue: string): Promise<Record<string, PinnedDefinition>> {
  try {
    const description = await client.workflow.getHandle(definitionRegistryWorkflowId(taskQueue)).describe();
    return (description.memo?.[REGISTRY_LATEST_MEMO] ?? {}) as Record<string, PinnedDefinition>;
  } catch (error) {
    if (isNotFound(error)) return {};
    throw error;
  }
}
