import { ApplicationFailure, Client, Connection, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError, WorkflowUpdateFailedError, isGrpcServiceError } from '@temporalio/client';
import type { ExecutionView } from '../../workflows/read-model/execution-view';
import { effectQuery, effectsQuery, ENDED_TICKET_REPLY_WORKFLOW_TYPE, executionQuery, observeSignal, replayEffectUpdate, searchAttributes, ticketWorkflowId, timelineQuery, TICKET_WORKFLOW_TYPE } from '../../workflows/messages';
import type { Observation, TicketWorkflowInput, TicketWorkflowSettings } from '../../workflows/ledger/observation';
import type { ServiceConfig } from '../config/service-config';
import type { TimelinePage } from '../../workflows/read-model/timeline';
import { executionViewFromMemo, timelinePageFromMemo } from '../../workflows/read-model/read-model-memo';
import type { EffectRecord } from '../../workflows/effects/effect-types';
import { selectDefinition } from '../definition-rules/select-definition';
import { TemporalUnavailableError } from './temporal-unavailable-error';
import type { PinnedDefinition } from '../../workflows/built-in-definitions/definition-types';
import { latestPublishedDefinitions } from './definition-registry';
import { TemporalDefinitions } from './temporal-definitions';
import { temporalConnectionOptions } from './connection-options';
import type { EndedRun, EndedTicketReplyPlan } from '../../workflows/ended-ticket-reply';

/**
 * What the gateway asks of Temporal. Every call is bounded by a deadline so that a webhook never hangs: when
 * Temporal cannot be reached the caller gets TemporalUnavailableError and answers 503, and the provider retries.
 */
export interface TicketWorkflowsPort {
  /** `completed`: the ticket's workflow ran to its end before; it is not started again (nothing was signalled). */
  startOrSignal(input: TicketWorkflowInput, observation: Observation): Promise<{ workflowId: string; completed?: boolean }>;
  signal(ticketKey: string, observation: Observation): Promise<'signalled' | 'not_found'>;
  execution(ticketKey: string): Promise<ExecutionView | undefined>;
  timeline(ticketKey: string, cursor: number, limit: number): Promise<TimelinePage | undefined>;
  /** The PR-to-ticket index: which ticket's workflow recorded this pull request (`owner/repo#12`). */
  findTicketByPullRequest(pullRequestRef: string): Promise<string | undefined>;
  /** The effects of a workflow chain, by its run id (the first run id, stable across continue-as-new). */
  effectsOfRun(runId: string): Promise<{ ticket_key: string; effects: EffectRecord[] } | undefined>;
  effect(idempotencyKey: string): Promise<EffectRecord | undefined>;
  replayEffect(idempotencyKey: string, requestedBy: string): Promise<ReplayOutcome>;
  /**
   * A request on a ticket whose workflow has ended: `plan` says what to write for that ended run, and a workflow of
   * its own writes it once per workflow id. `not_ended`: the ticket has no workflow at all, or one still running.
   * Optional: ports that never see ended tickets (test doubles) leave it out, and the request is ignored as before.
   */
  replyToEndedTicket?(ticketKey: string, plan: (ended: EndedRun) => EndedTicketReplyPlan): Promise<'answered' | 'already_answered' | 'not_ended'>;
}

export type ReplayOutcome =
  | { outcome: 'replayed'; effect: EffectRecord }
  | { outcome: 'not_found'; message: string }
  | { outcome: 'not_replayable'; message: string };

/** Effect keys start with the ticket key: `<TICKET>:<run_id>:<node>:<operation>:<n>`. */
export function ticketKeyOfEffect(idempotencyKey: string): string | undefined {
  const ticket = idempotencyKey.split(':')[0] ?? '';
  return /^[A-Z][A-Z0-9_]*-[1-9][0-9]*$/.test(ticket) ? ticket : undefined;
}

const GRPC_NOT_FOUND = 5;

/** The deployment settings a new ticket workflow starts with (workflow code cannot read the environment). */
export function ticketSettings(config: ServiceConfig): TicketWorkflowSettings {
  return {
    effect_timeout_seconds: config.effects.timeoutSeconds,
    history_event_limit: config.effects.historyEventLimit,
    retention: { timeline_entries: config.effects.retainTimelineEntries, terminal_effects: config.effects.retainTerminalEffects },
  };
}

function isNotFound(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  if (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND) return true;
  const cause = (error as { cause?: unknown })?.cause;
  return cause !== undefined && cause !== error && isNotFound(cause);
}

/**
 * A new run pins the definition for its issue type here, where the digest can be computed (DESIGN 6): the newest
 * revision published to the task queue's registry, or the built-in one when none newer is published.
 */
async function withPinnedDefinition(input: TicketWorkflowInput, latestPublished: (name: string) => Promise<PinnedDefinition | undefined>): Promise<TicketWorkflowInput> {
  if (input.definition !== undefined) return input;
  const route = selectDefinition(input.issue_type);
  if (!route.ok) return { ...input, definition: null, route_error: route.reason };
  const published = await latestPublished(route.definition.name);
  return { ...input, definition: published && published.revision > route.definition.revision ? published : route.definition };
}

/**
 * How long the gateway waits for Temporal before it answers 503. GitHub, GitLab (by default) and Jira give a webhook
 * 10 s before they count it as failed; a write that takes longer than this still leaves time for the HTTP answer.
 */
export const WEBHOOK_WRITE_DEADLINE_MS = 8_000;

export class TemporalTicketWorkflows implements TicketWorkflowsPort {
  private readonly client: Client;
  /** The registry lookup under way: creations that arrive meanwhile share it instead of each describing the registry. */
  private registryLookup: Promise<Record<string, PinnedDefinition>> | undefined;

  constructor(
    private readonly connection: Connection,
    namespace: string,
    private readonly taskQueue: string,
    private readonly settings?: TicketWorkflowSettings,
    private readonly deadlineMs = { write: WEBHOOK_WRITE_DEADLINE_MS, read: 10_000 },
  ) {
    this.client = new Client({ connection, namespace });
  }

  /** A lazy connection lets the gateway start (and answer health checks) while Temporal is still down. */
  static lazy(config: ServiceConfig): TemporalTicketWorkflows {
    return new TemporalTicketWorkflows(Connection.lazy({ ...temporalConnectionOptions(config.temporal), connectTimeout: 3_000 }), config.temporal.namespace, config.temporal.taskQueue, ticketSettings(config));
  }

  private async bounded<T>(what: string, ms: number, fn: () => Promise<T>, deadline = Date.now() + ms): Promise<T> {
    try {
      return await this.connection.withDeadline(deadline, fn);
    } catch (error) {
      if (isNotFound(error)) throw error;
      throw new TemporalUnavailableError(`Temporal did not accept ${what}: ${(error as Error).message}`, { cause: error });
    }
  }

  async startOrSignal(input: TicketWorkflowInput, observation: Observation): Promise<{ workflowId: string; completed?: boolean }> {
    const workflowId = ticketWorkflowId(input.ticket_key);
    // The lookup and the start share one deadline: the provider waits for both.
    const deadline = Date.now() + this.deadlineMs.write;
    const pinned = await this.bounded('the definition registry lookup', this.deadlineMs.write, () =>
      withPinnedDefinition(this.settings ? { ...input, settings: this.settings } : input, async (name) => (await this.latestPublished())[name]), deadline);
    const started = await this.bounded(`signal-with-start of ${workflowId}`, this.deadlineMs.write, () => this.client.workflow.signalWithStart(TICKET_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: this.taskQueue,
      // A ticket that ran to its end is never started again by a redelivered issue_created (the poller re-reads
      // every managed ticket): that would plan, push and open a pull request a second time. A run an operator
      // terminated, or one that failed, may start again.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      args: [pinned],
      signal: observeSignal,
      signalArgs: [observation],
      typedSearchAttributes: [
        { key: searchAttributes.ticketKey, value: input.ticket_key },
        { key: searchAttributes.workflowType, value: input.workflow_kind },
      ],
    }).then(() => true, (error: unknown) => {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw error;
    }), deadline);
    return started ? { workflowId } : { workflowId, completed: true };
  }

  /**
   * The newest published definitions. A burst of new tickets would otherwise describe the registry once each; a
   * creation joins the lookup under way, so it may miss a revision published during that one round trip, as it would
   * had it arrived a moment earlier. Nothing is kept after the lookup answers: the next creation asks again.
   */
  private latestPublished(): Promise<Record<string, PinnedDefinition>> {
    this.registryLookup ??= latestPublishedDefinitions(this.client, this.taskQueue).finally(() => {
      this.registryLookup = undefined;
    });
    return this.registryLookup;
  }

  async replyToEndedTicket(ticketKey: string, plan: (ended: EndedRun) => EndedTicketReplyPlan): Promise<'answered' | 'already_answered' | 'not_ended'> {
    const workflowId = ticketWorkflowId(ticketKey);
    const deadline = Date.now() + this.deadlineMs.write;
    const description = await this.bounded(`the description of ${workflowId}`, this.deadlineMs.write, () => this.client.workflow.getHandle(workflowId).describe(), deadline)
      .catch((error: unknown) => { if (isNotFound(error)) return undefined; throw error; });
    if (!description || description.status.name === 'RUNNING' || description.status.name === 'CONTINUED_AS_NEW') return 'not_ended';
    const { workflow_id, input } = plan({ status: description.status.name, closed_at: description.closeTime?.toISOString() ?? null });
    return this.bounded(`the start of ${workflow_id}`, this.deadlineMs.write, () => this.client.workflow.start(ENDED_TICKET_REPLY_WORKFLOW_TYPE, {
      workflowId: workflow_id,
      taskQueue: this.taskQueue,
      // Once answered, the same request is not answered again, however often it is delivered or repeated.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      args: [input],
    }).then(() => 'answered' as const, (error: unknown) => {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return 'already_answered' as const;
      throw error;
    }), deadline);
  }

  async signal(ticketKey: string, observation: Observation): Promise<'signalled' | 'not_found'> {
    const workflowId = ticketWorkflowId(ticketKey);
    try {
      await this.bounded(`a signal to ${workflowId}`, this.deadlineMs.write, () => this.client.workflow.getHandle(workflowId).signal(observeSignal, observation));
      return 'signalled';
    } catch (error) {
      if (isNotFound(error)) return 'not_found';
      throw error;
    }
  }

  async execution(ticketKey: string): Promise<ExecutionView | undefined> {
    const workflowId = ticketWorkflowId(ticketKey);
    // The describe and the query share one deadline: the caller waits for both.
    const deadline = Date.now() + this.deadlineMs.read;
    try {
      const view = await this.fromReadModel(workflowId, deadline, (memo) => executionViewFromMemo(memo));
      this.onRead('execution', view ? 'memo' : 'query');
      if (view) return view;
      return await this.bounded(`the execution query of ${workflowId}`, this.deadlineMs.read, () => this.client.workflow.getHandle(workflowId).query(executionQuery), deadline);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async timeline(ticketKey: string, cursor: number, limit: number): Promise<TimelinePage | undefined> {
    const workflowId = ticketWorkflowId(ticketKey);
    const deadline = Date.now() + this.deadlineMs.read;
    try {
      const page = await this.fromReadModel(workflowId, deadline, (memo) => timelinePageFromMemo(memo, cursor, limit));
      this.onRead('timeline', page ? 'memo' : 'query');
      if (page) return page;
      return await this.bounded(`the timeline query of ${workflowId}`, this.deadlineMs.read, () => this.client.workflow.getHandle(workflowId).query(timelineQuery, { cursor, limit }), deadline);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /**
   * Reads from the memo the workflow keeps (workflows/read-model/read-model-memo.ts) with DescribeWorkflowExecution, which the
   * server answers without the worker. The memo is current only while no workflow task is pending: a delivery or an
   * activity result not yet decided, or a task running now. Then, or when the memo cannot answer (the workflow marked
   * it busy, a run started before the read model, a timeline page older than the memo keeps), the caller asks the
   * workflow by query, which waits for that task.
   */
  private async fromReadModel<T>(workflowId: string, deadline: number, read: (memo: Record<string, unknown> | undefined) => T | undefined): Promise<T | undefined> {
    const description = await this.bounded(`the description of ${workflowId}`, this.deadlineMs.read, () => this.client.workflow.getHandle(workflowId).describe(), deadline);
    if (description.raw.pendingWorkflowTask) return undefined;
    return read(description.memo);
  }

  /** Where each read was answered from (the gateway counts them: `service_read_model_answers_total`). */
  onRead: (route: 'execution' | 'timeline', source: 'memo' | 'query') => void = () => undefined;

  async findTicketByPullRequest(pullRequestRef: string): Promise<string | undefined> {
    const query = `${searchAttributes.pullRequests.name} = ${JSON.stringify(pullRequestRef)}`;
    return this.bounded(`the pull-request index lookup of ${pullRequestRef}`, this.deadlineMs.read, async () => {
      for await (const execution of this.client.workflow.list({ query, pageSize: 1 })) {
        const key = execution.typedSearchAttributes.get(searchAttributes.ticketKey);
        if (key) return key;
      }
      return undefined;
    });
  }

  async effectsOfRun(runId: string): Promise<{ ticket_key: string; effects: EffectRecord[] } | undefined> {
    const query = `${searchAttributes.runId.name} = ${JSON.stringify(runId)}`;
    const ticketKey = await this.bounded(`the run lookup of ${runId}`, this.deadlineMs.read, async () => {
      for await (const execution of this.client.workflow.list({ query, pageSize: 1 })) return execution.typedSearchAttributes.get(searchAttributes.ticketKey);
      return undefined;
    });
    if (!ticketKey) return undefined;
    try {
      const effects = await this.bounded(`the effects query of ${ticketKey}`, this.deadlineMs.read, () => this.client.workflow.getHandle(ticketWorkflowId(ticketKey)).query(effectsQuery));
      return { ticket_key: ticketKey, effects };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async effect(idempotencyKey: string): Promise<EffectRecord | undefined> {
    const ticketKey = ticketKeyOfEffect(idempotencyKey);
    if (!ticketKey) return undefined;
    try {
      const record = await this.bounded(`the effect query of ${ticketKey}`, this.deadlineMs.read, () => this.client.workflow.getHandle(ticketWorkflowId(ticketKey)).query(effectQuery, idempotencyKey));
      return record ?? undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async replayEffect(idempotencyKey: string, requestedBy: string): Promise<ReplayOutcome> {
    const ticketKey = ticketKeyOfEffect(idempotencyKey);
    if (!ticketKey) return { outcome: 'not_found', message: `"${idempotencyKey}" is not an effect key of this service` };
    try {
      // A replay waits for its one provider attempt; the effect timeout bounds it, plus a margin for Temporal.
      const effect = await this.bounded(`the replay of ${idempotencyKey}`, (this.settings?.effect_timeout_seconds ?? 60) * 1000 + 15_000, () =>
        this.client.workflow.getHandle(ticketWorkflowId(ticketKey)).executeUpdate(replayEffectUpdate, { args: [{ idempotency_key: idempotencyKey, requested_by: requestedBy }] }));
      return { outcome: 'replayed', effect };
    } catch (error) {
      if (isNotFound(error)) return { outcome: 'not_found', message: `no workflow for ticket ${ticketKey}` };
      const cause = error instanceof TemporalUnavailableError ? (error.cause as Error | undefined) : error;
      if (cause instanceof WorkflowUpdateFailedError && cause.cause instanceof ApplicationFailure) {
        if (cause.cause.type === 'EffectNotFound') return { outcome: 'not_found', message: cause.cause.message };
        if (cause.cause.type === 'EffectNotReplayable') return { outcome: 'not_replayable', message: cause.cause.message };
      }
      throw error;
    }
  }

  /** The definition registry (and migrations) over this connection (DESIGN 6). */
  definitions(): TemporalDefinitions {
    return new TemporalDefinitions(this.client, this.connection, this.taskQueue);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
