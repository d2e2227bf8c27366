import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { SearchAttributeTypeName } from './dev-stack-config';

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;

/** The server's value type of each type name of the configuration (temporal-dev.yaml, SEARCH_ATTRIBUTE_TYPES). */
export const TYPE_BY_NAME: Record<SearchAttributeTypeName, temporal.api.enums.v1.IndexedValueType> = {
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

export class SearchAttributeConflictError extends Error {
  override readonly name = 'SearchAttributeConflictError';
}

/**
 * Registers the custom search attributes that are missing and leaves existing ones alone, so it is safe on every
 * start, also against a database created by an older version with fewer attributes. An attribute that exists with
 * another type cannot be fixed automatically (Temporal does not retype attributes): that is reported, not ignored.
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
  wanted: Record<string, SearchAttributeTypeName>,
): Promise<{ added: string[]; existing: string[] }> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const current = listed.customAttributes ?? {};
  const missing: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  const existing: string[] = [];
  for (const [name, typeName] of Object.entries(wanted)) {
    const want = TYPE_BY_NAME[typeName];
    const have = current[name];
    if (have === undefined || have === null) {
      missing[name] = want;
    } else if (have !== want) {
      throw new SearchAttributeConflictError(
        `search attribute ${name} exists in namespace ${namespace} with another type (${IndexedValueType[have]}), expected ${typeName}`,
      );
    } else {
      existing.push(name);
    }
  }
  const added = Object.keys(missing);
  if (added.length > 0) {
    try {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
    } catch (error) {
      // Two processes starting at once may race; a second add of the same attribute is not a failure.
      if (!/already exists/i.test((error as Error).message)) throw error;
    }
  }
  return { added, existing };
}

/**
 * Waits until a visibility query on the given attributes is accepted. With SQL visibility (PostgreSQL, MySQL; not the
 * dev server) an attribute just added is an alias the frontend knows only after its namespace cache refreshes, a
 * second or two later; until then a workflow that sets it fails its start or its task.
 */
export async function waitUntilSearchAttributesUsable(connection: Connection, namespace: string, names: string[], timeoutMs = 30_000): Promise<void> {
  if (names.length === 0) return;
  const query = names.map((name) => `${name} IS NULL`).join(' AND ');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: 1 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the search attributes ${names.join(', ')} were not usable within ${timeoutMs / 1000} s: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
