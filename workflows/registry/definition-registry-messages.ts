import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { PinnedDefinition } from '../built-in-definitions/definition-types';
import type { PublishedRevision, PublishRequest, PublishResult } from './definition-registry-state';

/** The registry's messages (DESIGN 6): publish is an Update (validated before it is written), reads are Queries. */
export const publishDefinitionUpdate = defineUpdate<PublishResult, [PublishRequest]>('publishDefinition');
export const publishedRevisionsQuery = defineQuery<PublishedRevision[]>('publishedRevisions');
export const publishedDefinitionQuery = defineQuery<PinnedDefinition | null, [{ name: string; revision: number }]>('publishedDefinition');

export const DEFINITION_REGISTRY_WORKFLOW_TYPE = 'definitionRegistryWorkflow';
/** The memo key holding the newest published revision of each name: read with describe(), no worker needed. */
export const REGISTRY_LATEST_MEMO = 'latest';

/** One registry per task queue, like the poller schedule: the tickets of a queue pin from their queue's registry. */
export function definitionRegistryWorkflowId(taskQueue: string): string {
  return `definition-registry-${taskQueue}`;
}
