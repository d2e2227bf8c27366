import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Observation } from './ledger/observation';
import type { ExecutionView } from './read-model/execution-view';
import type { TimelinePage } from './read-model/timeline';
import type { EffectRecord } from './effects/effect-types';

/** Every delivery for a ticket arrives through this one signal; the workflow decides what it means. */
export const observeSignal = defineSignal<[Observation]>('observe');

export const executionQuery = defineQuery<ExecutionView>('execution');
export const timelineQuery = defineQuery<TimelinePage, [{ cursor: number; limit: number }]>('timeline');

export const effectsQuery = defineQuery<EffectRecord[]>('effects');
export const effectQuery = defineQuery<EffectRecord | null, [string]>('effect');
/** Operator replay of one terminal effect; rejected (by the validator) for unknown or non-terminal effects. */
export const replayEffectUpdate = defineUpdate<EffectRecord, [{ idempotency_key: string; requested_by: string }]>('replayEffect');

export const TICKET_WORKFLOW_TYPE = 'ticketWorkflow';

export function ticketWorkflowId(ticketKey: string): string {
  return `ticket-${ticketKey.toUpperCase()}`;
}

export const ENDED_TICKET_REPLY_WORKFLOW_TYPE = 'endedTicketReplyWorkflow';

// Registered by `service dev` from temporal-dev.yaml; names and types must match that file.
export const searchAttributes = {
  status: defineSearchAttributeKey('ServiceStatus', SearchAttributeType.KEYWORD),
  node: defineSearchAttributeKey('ServiceNode', SearchAttributeType.KEYWORD),
  runId: defineSearchAttributeKey('ServiceRunId', SearchAttributeType.KEYWORD),
  blocked: defineSearchAttributeKey('ServiceBlocked', SearchAttributeType.BOOL),
  ticketKey: defineSearchAttributeKey('ServiceTicketKey', SearchAttributeType.KEYWORD),
  workflowType: defineSearchAttributeKey('ServiceWorkflowType', SearchAttributeType.KEYWORD),
  pullRequests: defineSearchAttributeKey('ServicePullRequests', SearchAttributeType.KEYWORD_LIST),
} as const;

export const SEARCH_ATTRIBUTE_TYPES = {
  ServiceStatus: 'Keyword',
  ServiceNode: 'Keyword',
  ServiceRunId: 'Keyword',
  ServiceBlocked: 'Bool',
  ServiceTicketKey: 'Keyword',
  ServiceWorkflowType: 'Keyword',
  ServicePullRequests: 'KeywordList',
} as const;
