import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter, TypedSearchAttributes } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { boardQuery, latestPerTicket, listedTicketOf, listedTicketOfRaw } from '../../../src/console/ticket-listing';
import { searchAttributes } from '../../../workflows/messages';
import { syntheticMemo, syntheticView } from '../../helpers/listed-ticket-workflows';
import { listedOf, viewOf } from '../../helpers/console-fixtures';

describe('the board\'s listing', () => {
  it('asks visibility for the running tickets of this task queue and those that ended since, without continued runs', () => {
    expect(boardQuery('service-tickets', new Date('2026-12-01T00:00:00Z'))).toBe(
      'WorkflowType = "ticketWorkflow" AND TaskQueue = "service-tickets" AND (ExecutionStatus = \'Running\' OR CloseTime > "2026-12-01T00:00:00.000Z") AND ExecutionStatus != \'ContinuedAsNew\'',
    );
  });

  it('keeps one run per ticket: the running one, else the newest', () => {
    const view = viewOf('A-1');
    const old = listedOf(view, { runStatus: 'TERMINATED', startedAt: '2026-11-01T00:00:00.000Z' });
    const newer = listedOf(view, { runStatus: 'COMPLETED', startedAt: '2026-11-20T00:00:00.000Z' });
    const running = listedOf(view, { runStatus: 'RUNNING', startedAt: '2026-11-10T00:00:00.000Z' });
    expect(latestPerTicket([old, running, newer])).toEqual([running]);
    expect(latestPerTicket([newer, old])).toEqual([newer]);
  });

  it('reads a listed execution from the gRPC answer as the SDK\'s decoding would, without decoding the timeline chunks', () => {
    const memo = syntheticMemo('RAW-1', 'blocked');
    const attributes = { ServiceTicketKey: 'RAW-1', ServiceStatus: 'blocked', ServiceNode: 'triage_check', ServiceBlocked: true, ServiceWorkflowType: 'bug', ServicePullRequests: ['acme/app#3'] };
    const Status = temporal.api.enums.v1.WorkflowExecutionStatus;
    const encoded = temporal.api.workflow.v1.WorkflowExecutionInfo.encode({
      execution: { workflowId: 'ticket-RAW-1', runId: 'run-1' }, type: { name: 'ticketWorkflow' }, status: Status.WORKFLOW_EXECUTION_STATUS_TERMINATED,
      // protobufjs encodes a number where its types say Long.
      startTime: { seconds: 1_764_576_000 as never, nanos: 250_000_000 }, closeTime: { seconds: 1_764_579_600 as never, nanos: 0 },
      memo: { fields: Object.fromEntries(Object.entries(memo).map(([k, v]) => [k, defaultPayloadConverter.toPayload(v)])) },
      searchAttributes: { indexedFields: Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, defaultPayloadConverter.toPayload(v)])) },
    }).finish();
    const raw = temporal.api.workflow.v1.WorkflowExecutionInfo.decode(encoded);
    const listed = listedTicketOfRaw(raw);
    expect(listed).toEqual(listedTicketOf({
      workflowId: 'ticket-RAW-1', status: { code: Status.WORKFLOW_EXECUTION_STATUS_TERMINATED, name: 'TERMINATED' },
      startTime: new Date('2025-12-01T08:00:00.250Z'), closeTime: new Date('2025-12-01T09:00:00.000Z'), memo,
      typedSearchAttributes: new TypedSearchAttributes([
        { key: searchAttributes.ticketKey, value: 'RAW-1' }, { key: searchAttributes.status, value: 'blocked' }, { key: searchAttributes.node, value: 'triage_check' },
        { key: searchAttributes.blocked, value: true }, { key: searchAttributes.workflowType, value: 'bug' }, { key: searchAttributes.pullRequests, value: ['acme/app#3'] },
      ]),
    }));
    expect(listed).toMatchObject({ ticketKey: 'RAW-1', runStatus: 'TERMINATED', startedAt: '2025-12-01T08:00:00.250Z', closedAt: '2025-12-01T09:00:00.000Z', attributes: { blocked: true, pullRequests: ['acme/app#3'] } });
    expect(listed!.view).toEqual(syntheticView('RAW-1', 'blocked'));
    // An execution without the ticket's key (the poller, the registry) is no ticket.
    expect(listedTicketOfRaw({ ...raw, searchAttributes: { indexedFields: {} } })).toBeUndefined();
    expect(listedTicketOfRaw({ ...raw, status: Status.WORKFLOW_EXECUTION_STATUS_CANCELED })!.runStatus).toBe('CANCELLED');
  });
});
