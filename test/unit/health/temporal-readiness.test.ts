import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { searchAttributeProblems, temporalReadiness } from '../../../src/health/temporal-readiness';

const T = temporal.api.enums.v1.IndexedValueType;
const wanted = { ServiceStatus: 'Keyword', ServiceBlocked: 'Bool', ServicePullRequests: 'KeywordList' } as const;
const allThere = { ServiceStatus: T.INDEXED_VALUE_TYPE_KEYWORD, ServiceBlocked: T.INDEXED_VALUE_TYPE_BOOL, ServicePullRequests: T.INDEXED_VALUE_TYPE_KEYWORD_LIST };

describe('searchAttributeProblems', () => {
  it('is empty when every wanted attribute is registered with its type (others may exist)', () => {
    expect(searchAttributeProblems(wanted, { ...allThere, SomeoneElses: T.INDEXED_VALUE_TYPE_INT })).toEqual([]);
  });

  it('names the missing ones together and each retyped one', () => {
    expect(searchAttributeProblems(wanted, { ServiceBlocked: T.INDEXED_VALUE_TYPE_KEYWORD })).toEqual([
      'not registered: ServiceStatus, ServicePullRequests',
      'ServiceBlocked is Keyword, expected Bool',
    ]);
  });
});

/** A gRPC error as the client's connection throws it (code, details, metadata). */
function grpcError(code: number, message: string): Error {
  return Object.assign(new Error(`${code} ${message}`), { code, details: message, metadata: {} });
}

function fakeConnection(answers: {
  systemInfo?: () => unknown; describeNamespace?: () => unknown; listSearchAttributes?: () => unknown; listWorkflowExecutions?: (request: { query: string }) => unknown;
}): { connection: Connection; queries: string[] } {
  const queries: string[] = [];
  const call = (fn?: (...args: any[]) => unknown) => async (...args: any[]) => {
    if (!fn) return {};
    return fn(...args);
  };
  const connection = {
    withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn(),
    workflowService: {
      getSystemInfo: call(answers.systemInfo ?? (() => ({ serverVersion: '1.28.0' }))),
      describeNamespace: call(answers.describeNamespace ?? (() => ({ namespaceInfo: { state: 1 } }))),
      listWorkflowExecutions: call((request: { query: string }) => { queries.push(request.query); return answers.listWorkflowExecutions?.(request) ?? {}; }),
    },
    operatorService: { listSearchAttributes: call(answers.listSearchAttributes ?? (() => ({ customAttributes: allThere }))) },
  } as unknown as Connection;
  return { connection, queries };
}

const target = { address: '127.0.0.1:7233', namespace: 'default' };

describe('temporalReadiness', () => {
  it('passes all three checks, querying the attributes on a workflow id nothing has', async () => {
    const { connection, queries } = fakeConnection({});
    const checks = await temporalReadiness(connection, target, wanted);
    expect(checks.map((c) => [c.name, c.status])).toEqual([['temporal', 'pass'], ['namespace', 'pass'], ['search_attributes', 'pass']]);
    expect(checks[0]!.detail).toBe('Temporal 1.28.0 at 127.0.0.1:7233');
    expect(queries).toEqual(["WorkflowId = 'service-readiness-probe' AND ServiceStatus IS NULL AND ServiceBlocked IS NULL AND ServicePullRequests IS NULL"]);
  });

  it('fails temporal and skips the rest when the server does not answer', async () => {
    const { connection } = fakeConnection({ systemInfo: () => { throw grpcError(14, 'UNAVAILABLE: No connection established'); } });
    const checks = await temporalReadiness(connection, target, wanted);
    expect(checks).toEqual([
      { name: 'temporal', status: 'fail', detail: 'cannot reach Temporal at 127.0.0.1:7233: 14 UNAVAILABLE: No connection established' },
      { name: 'namespace', status: 'skipped', detail: 'Temporal at 127.0.0.1:7233 is unreachable' },
      { name: 'search_attributes', status: 'skipped', detail: 'Temporal at 127.0.0.1:7233 is unreachable' },
    ]);
  });

  it('says how long it waited for a server that never answered', async () => {
    const { connection } = fakeConnection({ systemInfo: () => { throw grpcError(4, 'DEADLINE_EXCEEDED: Deadline exceeded after 0.000s,waiting for metadata filters'); } });
    const checks = await temporalReadiness(connection, target, wanted, 2_500);
    expect(checks[0]).toEqual({ name: 'temporal', status: 'fail', detail: 'cannot reach Temporal at 127.0.0.1:7233: no answer within 2.5 s' });
  });

  it('says a namespace that does not exist does not exist', async () => {
    const { connection } = fakeConnection({ describeNamespace: () => { throw grpcError(5, 'Namespace nope is not found.'); } });
    const checks = await temporalReadiness(connection, { ...target, namespace: 'nope' }, wanted);
    expect(checks.slice(1)).toEqual([
      { name: 'namespace', status: 'fail', detail: 'namespace "nope" does not exist on 127.0.0.1:7233 (TEMPORAL_NAMESPACE)' },
      { name: 'search_attributes', status: 'skipped', detail: 'namespace "nope" is not usable' },
    ]);
  });

  it('fails search_attributes naming the missing ones', async () => {
    const { connection } = fakeConnection({ listSearchAttributes: () => ({ customAttributes: { ServiceStatus: T.INDEXED_VALUE_TYPE_KEYWORD } }) });
    const checks = await temporalReadiness(connection, target, wanted);
    expect(checks[2]).toMatchObject({ name: 'search_attributes', status: 'fail' });
    expect(checks[2]!.detail).toContain('not registered: ServiceBlocked, ServicePullRequests');
  });

  it('fails search_attributes when the visibility query refuses them (listed but not yet usable)', async () => {
    const { connection } = fakeConnection({ listWorkflowExecutions: () => { throw grpcError(3, 'INVALID_ARGUMENT: invalid query: unknown search attribute ServiceStatus'); } });
    const checks = await temporalReadiness(connection, target, wanted);
    expect(checks[2]).toMatchObject({ name: 'search_attributes', status: 'fail' });
    expect(checks[2]!.detail).toContain('unknown search attribute ServiceStatus');
  });

  it('relies on the query alone where listing the attributes is not permitted', async () => {
    const { connection } = fakeConnection({ listSearchAttributes: () => { throw grpcError(7, 'PERMISSION_DENIED: Request unauthorized.'); } });
    const checks = await temporalReadiness(connection, target, wanted);
    expect(checks[2]).toEqual({ name: 'search_attributes', status: 'pass', detail: '3 custom attributes usable in queries' });
  });
});
