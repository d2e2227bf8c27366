import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { failed, passed, skipped, type CheckResult } from './readiness';
import type { SearchAttributeTypeName } from '../temporal/dev-stack-config';
import { TYPE_BY_NAME } from '../temporal/search-attributes';

const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_NOT_FOUND = 5;
const GRPC_PERMISSION_DENIED = 7;
const GRPC_UNIMPLEMENTED = 12;
const NAMESPACE_DELETED = temporal.api.enums.v1.NamespaceState.NAMESPACE_STATE_DELETED;

/** Nothing is called this: a query on it reads one index entry, however many workflows the namespace holds. */
const NO_SUCH_WORKFLOW = 'service-readiness-probe';

export interface TemporalTarget {
  address: string;
  namespace: string;
}

/**
 * What is wrong with the custom search attributes a namespace has, measured against the ones the service needs:
 * each missing one, and each registered with another type. Empty when all are there.
 */
export function searchAttributeProblems(
  wanted: Record<string, SearchAttributeTypeName>,
  current: Record<string, temporal.api.enums.v1.IndexedValueType | null | undefined>,
): string[] {
  const nameOfType = new Map(Object.entries(TYPE_BY_NAME).map(([name, type]) => [type, name]));
  const missing = Object.keys(wanted).filter((name) => current[name] === undefined || current[name] === null);
  const retyped = Object.entries(wanted)
    .filter(([name, type]) => !missing.includes(name) && current[name] !== TYPE_BY_NAME[type])
    .map(([name, type]) => `${name} is ${nameOfType.get(current[name]!) ?? `type ${current[name]}`}, expected ${type}`);
  return [...(missing.length > 0 ? [`not registered: ${missing.join(', ')}`] : []), ...retyped];
}

/** The checks that follow `temporal` and are not run when it fails. */
export const TEMPORAL_DEPENDENT_CHECKS = ['namespace', 'search_attributes'];

function reason(error: unknown, timeoutMs: number): string {
  // The client retries an unreachable server until the deadline, whose own message ("waiting for metadata filters") says nothing.
  if (isGrpcServiceError(error) && error.code === GRPC_DEADLINE_EXCEEDED) return `no answer within ${timeoutMs / 1000} s`;
  return (error as Error).message.replace(/\s+/g, ' ').trim();
}

/**
 * Readiness toward Temporal as three checks that depend on each other: the server answers (`temporal`), the
 * configured namespace exists (`namespace`), and the service's custom search attributes are registered with their
 * types and accepted in a visibility query (`search_attributes`; with SQL visibility an attribute just added is
 * listed a moment before queries accept it). The calls share one deadline, `timeoutMs` from now, so the answer comes
 * within the time the probe gives it also when Temporal does not answer.
 */
export async function temporalReadiness(
  connection: Connection,
  target: TemporalTarget,
  wanted: Record<string, SearchAttributeTypeName>,
  timeoutMs = 3_000,
): Promise<CheckResult[]> {
  const { address, namespace } = target;
  const deadline = Date.now() + timeoutMs;
  const call = <T>(fn: () => Promise<T>) => connection.withDeadline(deadline, fn);
  const why = (error: unknown) => reason(error, timeoutMs);

  let version: string;
  try {
    version = (await call(() => connection.workflowService.getSystemInfo({}))).serverVersion || 'unknown version';
  } catch (error) {
    return [
      failed('temporal', `cannot reach Temporal at ${address}: ${why(error)}`),
      ...TEMPORAL_DEPENDENT_CHECKS.map((name) => skipped(name, `Temporal at ${address} is unreachable`)),
    ];
  }
  const results = [passed('temporal', `Temporal ${version} at ${address}`)];

  try {
    const described = await call(() => connection.workflowService.describeNamespace({ namespace }));
    if (described.namespaceInfo?.state === NAMESPACE_DELETED) {
      return [...results, failed('namespace', `namespace "${namespace}" is being deleted`), skipped('search_attributes', `namespace "${namespace}" is being deleted`)];
    }
    results.push(passed('namespace', `namespace "${namespace}"`));
  } catch (error) {
    const detail = isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND
      ? `namespace "${namespace}" does not exist on ${address} (TEMPORAL_NAMESPACE)`
      : `could not describe namespace "${namespace}": ${why(error)}`;
    return [...results, failed('namespace', detail), skipped('search_attributes', `namespace "${namespace}" is not usable`)];
  }

  const names = Object.keys(wanted);
  let listed = true;
  try {
    const list = await call(() => connection.operatorService.listSearchAttributes({ namespace }));
    const problems = searchAttributeProblems(wanted, list.customAttributes ?? {});
    if (problems.length > 0) {
      return [...results, failed('search_attributes', `${problems.join('; ')} (the worker registers missing ones when it starts; a retyped one needs an operator)`)];
    }
  } catch (error) {
    // Some hosted namespaces do not let an API key list attributes: the query below still says whether they work.
    if (!(isGrpcServiceError(error) && (error.code === GRPC_PERMISSION_DENIED || error.code === GRPC_UNIMPLEMENTED))) {
      return [...results, failed('search_attributes', `could not list the search attributes: ${why(error)}`)];
    }
    listed = false;
  }
  try {
    const query = [`WorkflowId = '${NO_SUCH_WORKFLOW}'`, ...names.map((name) => `${name} IS NULL`)].join(' AND ');
    await call(() => connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: 1 }));
  } catch (error) {
    return [...results, failed('search_attributes', `a visibility query on ${names.join(', ')} is refused: ${why(error)}`)];
  }
  results.push(passed('search_attributes', `${names.length} custom attributes ${listed ? 'registered and ' : ''}usable in queries`));
  return results;
}
